public import PodiumCore
public import Logging
import Synchronization

/// One output: a bounded queue in front of a muxer, drained by the output's own thread, so a slow
/// or stuck destination drops its own packets and never holds up the encoder or the other outputs.
/// Either one the user named (`--to`), or a guest: a client that joined a listener.
public final class MuxerOutput: PacketSink {
    public let url: SinkURL
    public let counters: SinkCounters
    public let isRequired: Bool
    private let muxer: MuxerSink
    private let queue: BoundedQueue<EncodedPacket>
    private let interrupt = StopFlag()
    /// Open and writing; packets offered outside that time are not for this output.
    private let isOpen = Atomic<Bool>(false)
    /// The drop policy. Touched only by the thread that offers packets (the encode thread).
    private nonisolated(unsafe) var gate = KeyframeGate()
    private let logger: Logger

    /// - Parameters:
    ///   - stream: what is written.
    ///   - flushInterval: at most this much of a file is lost when the process is killed.
    ///   - capacity: packets that may wait; about two seconds of video at the target rate.
    ///   - client: for a guest, its connected socket (owned from now on); `nil` opens `url`.
    public init(url: SinkURL, stream: StreamDescription, flushInterval: Duration, counters: SinkCounters, capacity: Int,
                logger: Logger, client: Int32? = nil) {
        self.url = url
        self.counters = counters
        isRequired = client == nil
        muxer = MuxerSink(url: url, stream: stream, flushInterval: flushInterval, interrupt: interrupt,
                          client: client)
        self.queue = BoundedQueue(capacity: capacity)
        var logger = logger
        logger[metadataKey: "sink.url"] = "\(url)"
        self.logger = logger
    }

    /// Queues `packet` unless the output is not open or is full; a drop discards the packets after
    /// it up to the next keyframe (`KeyframeGate`). Never blocks. Call from the encode thread.
    public func offer(_ packet: EncodedPacket) {
        guard isOpen.load(ordering: .acquiring) else { return }
        let passed = gate.pass(isKeyframe: packet.isKeyframe) { queue.push(packet) == .enqueued }
        if !passed { counters.dropped.add(1, ordering: .relaxed) }
    }

    /// No more packets: the sink's thread writes what is queued, then finalizes the output.
    public func close() { queue.close() }

    /// Gives up blocking network I/O, even mid-write; for a destination that stopped taking packets.
    public func abort() { interrupt.raise() }

    /// Gives up only if a network destination is not open yet (a TCP listen no client answered, a
    /// connect still trying). A file is never cut off: it opens at once and is finalized.
    public func abortIfOpening() {
        if url.filePath == nil && !isOpen.load(ordering: .acquiring) { interrupt.raise() }
    }

    /// Opens the destination and writes the container's header; a TCP connect waits up to 5 s.
    /// - Returns: `false` when the run was stopped before the destination opened (a listener
    ///   nobody joined): nothing failed, there is just nothing to write.
    /// - Throws: when the destination cannot be opened.
    public func open() throws(PodiumError) -> Bool {
        do {
            try muxer.open()
        } catch {
            queue.close()
            if interrupt.isRaised { return false }
            if isRequired { counters.failed.store(true, ordering: .relaxed) }
            throw error
        }
        isOpen.store(true, ordering: .releasing)
        logger.info("sink open")
        return true
    }

    /// The sink's thread body once it is open: writes packets until closed, then finalizes.
    /// - Throws: when writing fails; the output is still finalized as far as it can be.
    public func drain(clock: some PacingClock) throws(PodiumError) {
        defer { queue.close() }
        var failure: PodiumError?
        while let packet = queue.pop() {
            let start = clock.now()
            do {
                try muxer.write(packet)
            } catch {
                failure = .io("\(url): writing failed: \(error)")
                break
            }
            counters.send.record(nanoseconds: clock.now() - start)
            counters.packets.add(1, ordering: .relaxed)
            counters.bytes.add(packet.size, ordering: .relaxed)
        }
        isOpen.store(false, ordering: .releasing)
        do {
            try muxer.finish()
        } catch {
            failure = failure ?? .io("\(url): could not finalize: \(error)")
        }
        if let failure {
            // A guest that left is no failure of the output it joined.
            if isRequired { counters.failed.store(true, ordering: .relaxed) }
            throw failure
        }
    }
}
