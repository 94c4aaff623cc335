public import PodiumCore
public import Logging
import Synchronization

/// One output: a bounded queue in front of a muxer, drained by the output's own thread, so a slow
/// or stuck destination drops its own packets and never holds up the encoders or the other outputs.
/// Either one the user named (`--to`), or a guest: a client that joined a listener. An output
/// whose route retries (a TCP connect) opens again after each fault, with backoff, and starts
/// over on a keyframe.
public final class MuxerOutput: RunOutput, PacketSink {
    public let url: SinkURL
    public let route: OutputRoute
    public let counters: SinkCounters
    public let program: Program
    public let isRequired: Bool
    private let client: SocketWriter?
    /// Packets waiting for the output's thread; a drop discards the packets of that stream up to
    /// its next keyframe.
    private let queue: BoundedQueue<KeyframeGate>
    /// Raised to give up blocking network I/O, even mid-write.
    private let interrupt = StopFlag()
    /// Raised by `close`: the run is over, no reconnection is tried.
    private let ended = StopFlag()
    /// Open and writing; packets offered outside that time are not for this output.
    private let isOpen = Atomic<Bool>(false)
    private let logger: Logger

    /// - Parameters:
    ///   - program: the streams it writes.
    ///   - flushInterval: at most this much of a file is lost when the process is killed.
    ///   - capacity: packets that may wait; about two seconds of video at the target rate.
    ///   - client: for a guest, its connected socket (owned from now on); `nil` opens `url`.
    public init(url: SinkURL, program: Program, flushInterval: Duration, counters: SinkCounters, capacity: Int,
                logger: Logger, client: Int32? = nil) {
        self.url = url
        self.program = program
        route = url.route(flushInterval: flushInterval)
        self.counters = counters
        isRequired = client == nil
        self.client = client.map { [interrupt] in SocketWriter(descriptor: $0, interrupt: interrupt) }
        queue = BoundedQueue(capacity: capacity, policy: KeyframeGate())
        FFmpegLog.keepSecret(url.secrets)
        var logger = logger
        logger[metadataKey: "sink.url"] = "\(url)"
        self.logger = logger
    }

    public var name: String { url.description }
    public var opensAtOnce: Bool { !route.opensLate }
    public var isLocal: Bool { route.isLocal }
    public var hasWritten: Bool { counters.packets.load(ordering: .relaxed) > 0 }
    public var hasFailed: Bool { counters.failed.load(ordering: .relaxed) }

    /// Queues `packet` unless the output is not open, or its drop policy refuses it (the queue is
    /// full, or a packet of its stream was dropped since that stream's last keyframe). Never blocks.
    public func offer(_ packet: EncodedPacket) {
        guard isOpen.load(ordering: .acquiring) else { return }
        if queue.push(packet) == .dropped { counters.dropped.add(1, ordering: .relaxed) }
    }

    /// No more packets: the output's thread writes what is queued, then finalizes the output.
    public func close() {
        ended.raise()
        queue.close()
    }

    /// Gives up blocking network I/O, even mid-write; for a destination that stopped taking packets.
    public func abort() { interrupt.raise() }

    /// Gives up only if a network destination is not open now (a TCP listen no client answered, a
    /// connect still trying). A file is never cut off: it opens at once and is finalized.
    public func abortIfOpening() {
        if !route.isLocal && !isOpen.load(ordering: .acquiring) { interrupt.raise() }
    }

    /// The output's thread body: opens it for its program's streams, subscribes it to `hub` and
    /// writes until the end. An output that retries connects again after a fault; the others end
    /// at their first fault.
    /// - Parameter opened: told how the first attempt to open went (capture may wait for it).
    /// - Throws: the fault that ended the output; nothing when the run stopped it.
    public func run(hub: StreamHub, clock: any PacingClock, opened: (PodiumError?) -> Void) throws(PodiumError) {
        var firstAttempt = true
        var wasUp = false
        while !ended.isRaised {
            let muxer: MuxerSink
            do {
                muxer = try open(hub.streams(of: program))
            } catch {
                if firstAttempt { opened(error) }
                firstAttempt = false
                if interrupt.isRaised || ended.isRaised { return }
                // A server that refuses a first attempt (a wrong key) will refuse the next; one that
                // took the stream before may still hold the last connection, so that is retried.
                guard let retry = route.retry, error.exitCode != .refused || wasUp else { throw failed(error) }
                counters.link.wentDown(at: clock.now())
                counters.link.attemptFailed()
                let failures = counters.link.failedAttempts.load(ordering: .relaxed)
                let delay = retry.delay(afterFailures: failures)
                if failures == 1 { logger.warning("\(error); trying again in \(Int(delay.seconds)) s") }
                clock.sleep(for: delay) { ended.isRaised || interrupt.isRaised }
                continue
            }
            isOpen.store(true, ordering: .releasing)
            hub.subscribe(self, to: program)
            if firstAttempt { opened(nil) }
            firstAttempt = false
            if let down = counters.link.downFor(at: clock.now()) {
                logger.notice("\(url): connected\(wasUp ? " again" : "") after \(down.seconds.fixed()) s down")
            }
            counters.link.cameUp(at: clock.now())
            wasUp = true
            let fault = drain(into: muxer, clock: clock)
            hub.unsubscribe(self)
            isOpen.store(false, ordering: .releasing)
            let finishFault = finish(muxer)
            guard let error = fault ?? finishFault else { return }
            if ended.isRaised || interrupt.isRaised || route.retry == nil { throw failed(error) }
            // A listener does not reconnect: it waits for the next receiver to call.
            logger.warning("\(error); \(route.listens ? "waiting for another receiver" : "reconnecting")")
            counters.link.wentDown(at: clock.now())
            queue.removeAll(policy: KeyframeGate())
        }
    }

    /// Opens the destination for `streams` and writes the container's header; a TCP connect
    /// waits up to 5 s.
    private func open(_ streams: [StreamDescription]) throws(PodiumError) -> MuxerSink {
        guard let muxer = MuxerSink(url: url, route: route, streams: streams, interrupt: interrupt, client: client)
        else {
            throw .software("\(url): out of memory")
        }
        try muxer.open()
        return muxer
    }

    /// Writes packets until the queue is closed (the end) or a write fails.
    private func drain(into muxer: MuxerSink, clock: some PacingClock) -> PodiumError? {
        while let packet = queue.pop() {
            let start = clock.now()
            do {
                try muxer.write(packet)
            } catch {
                return .io("\(url): writing failed: \(error)")
            }
            counters.send.record(nanoseconds: clock.now() - start)
            counters.packets.add(1, ordering: .relaxed)
            counters.bytes.add(packet.size, ordering: .relaxed)
        }
        return nil
    }

    /// Finalizes a connection's muxer (writes the trailer where there is one).
    private func finish(_ muxer: MuxerSink) -> PodiumError? {
        do {
            try muxer.finish()
        } catch {
            return .io("\(url): could not finalize: \(error)")
        }
        return nil
    }

    /// Marks a required output failed (a guest that left is no failure of the output it joined).
    private func failed(_ error: PodiumError) -> PodiumError {
        queue.close()
        if isRequired { counters.failed.store(true, ordering: .relaxed) }
        return error
    }
}
