import Logging
import Synchronization

/// Every output of a run: each on a thread of its own, subscribed to its program on the run's
/// hub. The outputs the user named are *required*: when every one of them has failed the run ends
/// (74, or 77 when a server refused the last). Guests come and go without ending anything.
public final class OutputGroup: Sendable {
    public let outputs: [any RunOutput]
    public let guests: [any GuestSink]
    private let threads = ThreadGroup()
    private let failed = Atomic<Int>(0)
    /// How long outputs may take to write what is queued once the run is over.
    private let grace: Duration

    /// - Parameters:
    ///   - outputs: the outputs the user named (`--to`), each required.
    ///   - guests: sinks with no thread of their own, such as the viewers' feeds.
    public init(outputs: [any RunOutput], guests: [any GuestSink] = [], grace: Duration = .seconds(5)) {
        self.outputs = outputs
        self.guests = guests
        self.grace = grace
    }

    /// Starts every output's thread. Capture waits for the outputs that open at once, so a file
    /// gets the first frame (a TCP connect with `?retry=off` tries for up to 5 s); a local output
    /// that cannot be opened ends the run before capture starts. An output that retries connects
    /// while capture runs. Guests are subscribed now.
    func start(_ run: Run) async {
        let opening = ReadyLatch(count: outputs.count(where: \.opensAtOnce))
        let localFailure = Mutex<PodiumError?>(nil)
        for output in outputs {
            let waited = output.opensAtOnce
            threads.spawn("podium-output") { [self] in
                var told = false
                do throws(PodiumError) {
                    try output.run(hub: run.hub, clock: run.clock) { error in
                        guard waited, !told else { return }
                        told = true
                        if let error, output.isLocal { localFailure.withLock { $0 = $0 ?? error } }
                        opening.report(nil)
                    }
                } catch {
                    report(error, of: output, run)
                }
                if waited && !told { opening.report(nil) }
            }
        }
        // A connect still trying gives up when the run is stopped.
        run.onStop { [outputs] in outputs.forEach { $0.abortIfOpening() } }
        _ = await opening.wait()
        if let failure = localFailure.withLock({ $0 }) { run.fail(failure) }
        for guest in guests {
            do throws(PodiumError) {
                try guest.start(run.hub.streams(of: guest.program))
                run.hub.subscribe(guest, to: guest.program)
            } catch {
                run.logger.error("\(error)")
            }
        }
    }

    /// An output's fault: said, and counted; the run ends when it was the last required output.
    private func report(_ error: PodiumError, of output: any RunOutput, _ run: Run) {
        // A local output that cannot be opened ends the run before it starts, with its own message.
        guard !output.isLocal || output.hasWritten else { return }
        // Failing to finish while stopping on purpose (a peer cut off after the grace period) is no news.
        if run.isStopping && !output.hasFailed { return }
        run.logger.error("\(error)")
        if failed.add(1, ordering: .relaxed).newValue == outputs.count {
            // The run ends with the last failure's code: 77 when a server refused, 74 for I/O.
            run.fail(PodiumError(error.exitCode, "every output failed; stopping"))
        }
    }

    /// No more packets: every output writes what it holds and finishes.
    func close() {
        outputs.forEach { $0.close() }
        guests.forEach { $0.close() }
    }

    /// Waits for the outputs to write what is queued and finalize; one that still does not take
    /// its packets after the grace period is cut off.
    func finish(_ run: Run) async {
        if await !threads.wait(timeout: grace) {
            run.logger.warning("an output is still busy \(Int(grace.seconds)) s after the end; giving up on it")
            outputs.forEach { $0.abort() }
            await threads.wait()
        }
    }
}
