public import PodiumCore
public import Logging
public import Synchronization

/// One output: a bounded queue in front of a muxer, drained by the output's own thread, so a slow
/// or stuck destination drops its own packets and never holds up the encoders or the other outputs.
/// Either one the user named (`--to`), or a guest: a client that joined a listener. An output
/// whose route retries (a TCP connect) opens again after each fault, with backoff, and starts
/// over on a keyframe.
public final class MuxerOutput: RunOutput, PacketSink {
    public let url: MuxerTarget
    public let route: OutputRoute
    public let program: Program
    public let isRequired: Bool
    private let client: SocketWriter?
    private let flushInterval: Duration
    /// Packets waiting for the output's thread, and the flags that end it.
    private let queue: OutputQueue
    private let logger: Logger
    /// Set while it writes nothing (a recording paused); cleared, it goes on from a keyframe with
    /// the pause cut out of its timeline.
    public let isPaused = Atomic<Bool>(false)
    /// Microseconds of its timeline written so far, pauses left out.
    public let written = Atomic<Int64>(0)

    /// - Parameters:
    ///   - program: the streams it writes.
    ///   - flushInterval: at most this much of a file is lost when the process is killed.
    ///   - capacity: packets that may wait; about two seconds of video at the target rate.
    ///   - client: for a guest, its connected socket (owned from now on); `nil` opens `url`.
    public init(target url: MuxerTarget, program: Program, flushInterval: Duration, counters: SinkCounters,
                capacity: Int, logger: Logger, client: Int32? = nil) {
        self.url = url
        self.program = program
        self.flushInterval = flushInterval
        route = url.route(flushInterval: flushInterval)
        isRequired = client == nil
        let queue = OutputQueue(capacity: capacity, counters: counters)
        self.queue = queue
        self.client = client.map { SocketWriter(descriptor: $0, interrupt: queue.interrupt) }
        FFmpegLog.keepSecret(url.secrets)
        var logger = logger
        logger[metadataKey: "sink.url"] = "\(url)"
        self.logger = logger
    }

    public var name: String { url.description }
    public var opensAtOnce: Bool { !route.opensLate }
    public var isLocal: Bool { route.isLocal }
    public var hasWritten: Bool { queue.hasWritten }
    public var hasFailed: Bool { queue.hasFailed }
    private var counters: SinkCounters { queue.counters }

    /// Queues `packet` unless the output is not open, or its drop policy refuses it. Never blocks.
    public func offer(_ packet: EncodedPacket) { queue.offer(packet) }

    /// No more packets: the output's thread writes what is queued, then finalizes the output.
    public func close() { queue.close() }

    /// Gives up blocking network I/O, even mid-write; for a destination that stopped taking packets.
    public func abort() { queue.interrupt.raise() }

    /// Gives up only if a network destination is not open now (a TCP listen no client answered, a
    /// connect still trying). A file is never cut off: it opens at once and is finalized.
    public func abortIfOpening() {
        if !route.isLocal && !queue.isTaking { queue.interrupt.raise() }
    }

    /// The output's thread body: opens it for its program's streams, subscribes it to `hub` and
    /// writes until the end. An output that retries connects again after a fault; the others end
    /// at their first fault.
    /// - Parameter opened: told how the first attempt to open went (capture may wait for it).
    /// - Throws: the fault that ended the output; nothing when the run stopped it.
    public func run(hub: StreamHub, clock: any PacingClock, opened: (PodiumError?) -> Void) throws(PodiumError) {
        var firstAttempt = true
        var wasUp = false
        var timeline = PausedTimeline()
        while !queue.ended.isRaised {
            var muxer: MuxerSink
            do {
                muxer = try open(hub.streams(of: program), piece: 1)
            } catch {
                if firstAttempt { opened(error) }
                firstAttempt = false
                if queue.isStopped { return }
                // A server that refuses a first attempt (a wrong key) will refuse the next; one that
                // took the stream before may still hold the last connection, so that is retried.
                guard let retry = route.retry, error.exitCode != .refused || wasUp else { throw failed(error) }
                queue.backOff(after: error, retry: retry, clock: clock, logger: logger)
                continue
            }
            queue.isTaking = true
            hub.subscribe(self, to: program)
            if firstAttempt { opened(nil) }
            firstAttempt = false
            queue.connected("\(url)", again: wasUp, clock: clock, logger: logger)
            wasUp = true
            let fault = drain(into: &muxer, streams: hub.streams(of: program), timeline: &timeline, clock: clock)
            hub.unsubscribe(self)
            queue.isTaking = false
            let finishFault = finish(muxer)
            guard let error = fault ?? finishFault else { return }
            if queue.isStopped || route.retry == nil { throw failed(error) }
            // A listener does not reconnect: it waits for the next receiver to call.
            logger.warning("\(error); \(route.listens ? "waiting for another receiver" : "reconnecting")")
            counters.link.wentDown(at: clock.now())
            queue.restart()
        }
    }

    /// Opens the destination (file `piece` of a split recording) for `streams` and writes the
    /// container's header; a TCP connect waits up to 5 s.
    private func open(_ streams: [StreamDescription], piece: Int) throws(PodiumError) -> MuxerSink {
        var (target, route) = (url, route)
        if case .file(let path, let container, .some) = url {
            target = .file(path: FileSplit.piece(piece, of: path), container: container, split: nil)
            route = target.route(flushInterval: flushInterval)
            // Each picture waits for the next, so a file's last one lasts until the keyframe the
            // next file starts with: the files, one after the other, keep the run's time line.
            route.holdsPictures = true
        }
        guard let muxer = MuxerSink(url: target, route: route, streams: streams, interrupt: queue.interrupt,
                                    client: client)
        else {
            throw .software("\(url): out of memory")
        }
        try muxer.open()
        return muxer
    }

    /// Writes packets until the queue is closed (the end) or a write fails; while paused, none. A
    /// split recording goes on in a new file at the first keyframe past its mark.
    private func drain(into muxer: inout MuxerSink, streams: [StreamDescription], timeline: inout PausedTimeline,
                       clock: some PacingClock) -> PodiumError? {
        var first: Int64?
        var piece = (number: 1, start: Int64?.none, bytes: Int64(0))
        while let packet = queue.pop() {
            guard let stream = streams.first(where: { $0.id == packet.streamID }) else { continue }
            let time = packet.presentationTime * 1_000_000 / Int64(max(1, stream.timeScale))
            let picture = stream.video != nil
            guard timeline.admits(time: time, picture: picture, keyframe: packet.isKeyframe,
                                  paused: isPaused.load(ordering: .relaxed)) else { continue }
            let placed = time - timeline.cut
            if case .file(_, _, let split?) = url, picture, packet.isKeyframe, let start = piece.start,
               split.isFull(microseconds: placed - start, bytes: piece.bytes) {
                muxer.cut = timeline.cut
                if let fault = finish(muxer, before: packet) { return fault }
                piece = (piece.number + 1, placed, 0)
                do {
                    muxer = try open(streams, piece: piece.number)
                } catch {
                    return error
                }
                // Each file's times start at its first picture.
                muxer.startTimeline(at: placed)
                if case .file(let path, _, _) = url {
                    let done = FileSplit.piece(piece.number - 1, of: path)
                    logger.notice("\(done) is done; now writing \(FileSplit.piece(piece.number, of: path))")
                }
            }
            // Sound that the encoders handed on after the picture a file starts with, but that
            // was heard before it, is left out (milliseconds): the file before is finished.
            if piece.number > 1, !picture, placed < piece.start ?? placed { continue }
            piece.start = piece.start ?? placed
            piece.bytes += Int64(packet.size)
            muxer.cut = timeline.cut
            let base = first ?? placed
            first = base
            if placed - base > written.load(ordering: .relaxed) { written.store(placed - base, ordering: .relaxed) }
            let start = clock.now()
            do {
                try muxer.write(packet)
            } catch {
                return .io("\(url): writing failed: \(error)")
            }
            queue.wrote(packet, nanoseconds: clock.now() - start)
        }
        return nil
    }

    /// Finalizes a connection's muxer (writes the trailer where there is one); a split recording's
    /// file, `before` the picture the next one starts with.
    private func finish(_ muxer: MuxerSink, before next: EncodedPacket? = nil) -> PodiumError? {
        do {
            try muxer.finish(before: next)
        } catch {
            return .io("\(url): could not finalize: \(error)")
        }
        return nil
    }

    /// Marks a required output failed (a guest that left is no failure of the output it joined).
    private func failed(_ error: PodiumError) -> PodiumError { queue.fail(error, required: isRequired) }
}
