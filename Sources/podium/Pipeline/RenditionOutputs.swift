import Foundation
import Logging
import PodiumCore
import PodiumMedia
import Synchronization

/// The required outputs of a whole run, across encoders: the run ends when every one has failed.
final class RequiredOutputs: Sendable {
    let count: Int
    private let failed = Atomic<Int>(0)

    init(count: Int) { self.count = count }

    /// Reports a required output's failure; the run ends when it was the last one standing.
    func report(_ error: PodiumError, _ pipeline: Pipeline) {
        pipeline.logger.error("\(error.message)")
        if failed.add(1, ordering: .relaxed).newValue == count {
            // The run ends with the last failure's code: 77 when a server refused, 74 for I/O.
            pipeline.fail(PodiumError(error.exitCode, "every output failed; stopping"))
        }
    }
}

/// The outputs one encoder feeds: a hub its packets are published on, the outputs the user named
/// that write to one place (each subscribes once open), and the listeners whose clients are guests.
final class RenditionOutputs: Sendable {
    let hub: PacketHub
    private let sinks: [MuxerOutput]
    private let listeners: [ClientListener]
    /// Sinks that come with the run but are nobody's required output: the browser viewers' feeds.
    private let guests = Mutex<[any PacketSink]>([])
    private let required: RequiredOutputs
    private let threads = DispatchGroup()
    /// Raised when the run stops: listeners admit no more clients.
    private let stopAccepting = StopFlag()

    init(stream: StreamDescription, sinks: [MuxerOutput], listeners: [ClientListener], required: RequiredOutputs) {
        hub = PacketHub(streams: [stream])
        self.sinks = sinks
        self.listeners = listeners
        self.required = required
    }

    /// Adds a sink that is subscribed as the outputs start and closed with them, and whose
    /// failure ends nothing.
    func add(guest: any PacketSink) {
        guests.withLock { $0.append(guest) }
    }

    /// Starts the output threads and the listeners. Capture waits for the outputs that open at once,
    /// so a file gets the first frame (a TCP connect with `?retry=off` tries for up to 5 s); a file
    /// that cannot be opened ends the run before capture starts. An output that retries connects
    /// while capture runs. Listeners admit clients from now until the end.
    func prepare(_ pipeline: Pipeline) async {
        let opening = DispatchGroup()
        let startFailure = Mutex<PodiumError?>(nil)
        for sink in sinks {
            // Capture waits for an output that opens at once (a file gets the first frame), not for
            // one whose peer may come later.
            let waited = !sink.route.opensLate
            if waited { opening.enter() }
            pipeline.spawn("podium-sink", group: threads) {
                self.runSink(sink, pipeline) { error in
                    guard waited else { return }
                    if let error, sink.route.isLocal { startFailure.withLock { $0 = $0 ?? error } }
                    opening.leave()
                }
            }
        }
        // A connect still trying gives up when the run is stopped.
        pipeline.onStop { [sinks, stopAccepting] in
            sinks.forEach { $0.abortIfOpening() }
            stopAccepting.raise()
        }
        await opening.wait()
        if let failure = startFailure.withLock({ $0 }) { pipeline.fail(failure) }
        for guest in guests.withLock({ $0 }) {
            do throws(PodiumError) {
                try hub.subscribe(guest)
            } catch {
                pipeline.logger.error("\(error.message)")
            }
        }
        for listener in listeners {
            do {
                try listener.bind()
            } catch {
                required.report(error, pipeline)
                continue
            }
            pipeline.spawn("podium-listener", group: threads) {
                listener.acceptClients(until: self.stopAccepting) { guest, peer in
                    self.serve(guest, from: peer, of: listener, pipeline)
                }
            }
        }
    }

    /// Publishes one of the encoder's packets, counting it for `counters`.
    /// - Parameter firstCapture: the grab time of the run's first frame, which packet times count from.
    func publish(_ packet: EncodedPacket, firstCapture: UInt64?, clock: any PacingClock, counters: RenditionCounters) {
        // Packets carry their frame's grab time, in microseconds since the first frame.
        var packet = packet
        if let firstCapture {
            packet.captureTime = firstCapture + UInt64(max(0, packet.presentationTime)) * 1_000
            counters.latency.record(nanoseconds: clock.now() &- packet.captureTime)
        }
        counters.bytes.add(packet.size, ordering: .relaxed)
        hub.publish(packet)
    }

    /// No more packets: every output writes what it holds and finishes.
    func close() {
        sinks.forEach { $0.close() }
        guests.withLock { $0 }.forEach { $0.close() }
        listeners.forEach { $0.closeAll() }
    }

    /// Waits for the outputs to write what is queued and finalize; a destination that still does
    /// not take its packets after a grace period is cut off.
    func finish(_ pipeline: Pipeline) async {
        if await !threads.wait(timeout: .seconds(5)) {
            pipeline.logger.warning("an output is still busy 5 s after the end; giving up on it")
            sinks.forEach { $0.abort() }
            listeners.forEach { $0.abortAll() }
            await threads.wait()
        }
    }

    /// The output's thread: it tells `opened` how its first attempt went, then writes (and, if it
    /// retries, reconnects) until the end.
    private func runSink(_ sink: MuxerOutput, _ pipeline: Pipeline, opened: (PodiumError?) -> Void) {
        do {
            try sink.run(hub: hub, clock: pipeline.clock, opened: opened)
        } catch {
            // A file that cannot be opened ends the run before it starts (`prepare`), with its own message.
            guard !sink.route.isLocal || sink.counters.packets.load(ordering: .relaxed) > 0 else { return }
            // Failing to finish while stopping on purpose (a peer cut off after the grace period) is no news.
            if pipeline.isStopping && !sink.counters.failed.load(ordering: .relaxed) { return }
            required.report(error, pipeline)
        }
    }

    /// A client of a listener, on a thread of its own: it joins on a keyframe, gets every packet
    /// until it leaves or the run ends, and its leaving ends nothing else.
    private func serve(_ guest: MuxerOutput, from peer: String, of listener: ClientListener, _ pipeline: Pipeline) {
        pipeline.spawn("podium-guest", group: threads) {
            let joined = pipeline.clock.now()
            pipeline.logger.notice("viewer \(peer) joined \(listener.url) (\(listener.clientCount) watching)")
            defer {
                listener.left(guest)
                let seconds = Double(pipeline.clock.now() - joined) / 1e9
                pipeline.logger.notice("viewer \(peer) left after \(seconds.fixed()) s")
            }
            do throws(PodiumError) {
                try guest.run(hub: self.hub, clock: pipeline.clock) { _ in }
            } catch {
                pipeline.logger.info("viewer \(peer): \(error.message)")
            }
        }
    }
}
