import Glibc
import Logging
public import PodiumCore
import Synchronization

/// `--replay 2m`: keeps the last minutes of the run's picture and sound as they are encoded, and
/// writes them to a file on demand while the run goes on. An output like any other (its own
/// bounded queue and thread), fed by the run's first encoding, whose packets it holds by reference
/// (no copy) until memory holds `--replay-memory`; older ones go to a temporary file, read back
/// when a save needs them. A full disk makes the replay shorter, never the run fail.
public final class ReplayKeeper: RunOutput, PacketSink, ReplayControl {
    /// Where a kept packet's bytes are.
    enum Bytes: Sendable {
        case held(any PacketPayload)
        case spilled(SpillFile, offset: Int64)
    }

    public let program: Program
    private let plan: ReplayPlan
    private let queue: OutputQueue
    private let logger: Logger
    private let window: Mutex<ReplayWindow<Bytes>>
    /// The streams kept, as their encoders described them when the run started.
    private let streams = Mutex<[StreamDescription]>([])
    private let saves = Atomic<Int>(0)
    /// Set while a save is written: one at a time, the others refused (not queued).
    private let saving = Atomic<Bool>(false)
    /// A spill file is left for a new one past this size: a file whose packets all went is freed.
    private static let spillFileSize: Int64 = 64 << 20

    init(plan: ReplayPlan, context: OutputContext) {
        self.plan = plan
        program = context.program
        queue = OutputQueue(capacity: context.capacity, counters: context.counters)
        logger = context.logger
        window = Mutex(ReplayWindow(span: plan.span.nanoseconds / 1_000, memoryLimit: plan.memoryLimit))
    }

    public var name: String { plan.description }
    public var opensAtOnce: Bool { true }
    public var isLocal: Bool { true }
    public var hasWritten: Bool { queue.hasWritten }
    public var hasFailed: Bool { queue.hasFailed }

    public func offer(_ packet: EncodedPacket) { queue.offer(packet) }
    public func close() { queue.close() }
    public func abort() { queue.interrupt.raise() }
    public func abortIfOpening() {}

    public func run(hub: StreamHub, clock: any PacingClock, opened: (PodiumError?) -> Void) throws(PodiumError) {
        let described = hub.streams(of: program)
        streams.withLock { $0 = described }
        queue.isTaking = true
        hub.subscribe(self, to: program)
        opened(nil)
        var spill = Spill()
        while let packet = queue.pop() {
            guard let stream = described.first(where: { $0.id == packet.streamID }) else { continue }
            let start = clock.now()
            let entry = ReplayWindow<Bytes>.Entry(
                streamID: packet.streamID, presentationTime: packet.presentationTime, duration: packet.duration,
                time: packet.presentationTime * 1_000_000 / Int64(max(1, stream.timeScale)),
                isKeyframe: packet.isKeyframe, isPicture: stream.video != nil, byteCount: packet.size,
                stored: .held(packet.payload))
            window.withLock { _ = $0.append(entry) }
            spillWhileFull(&spill, now: start)
            queue.wrote(packet, nanoseconds: clock.now() - start)
        }
        hub.unsubscribe(self)
        queue.isTaking = false
    }

    /// The keeper thread's spill file, and when spilling last failed.
    private struct Spill {
        var file: SpillFile?
        var failedAt: UInt64?
    }

    /// Moves the oldest packets held in memory to the spill file while memory holds more than its
    /// limit. When that fails (a full disk), the oldest groups of pictures go instead, and
    /// spilling is tried again a minute later.
    private func spillWhileFull(_ spill: inout Spill, now: UInt64) {
        if let failed = spill.failedAt, now - failed < 60_000_000_000 {
            window.withLock { window in
                while window.nextToSpill != nil, window.dropOldestGroup() > 0 {}
            }
            return
        }
        while let (index, bytes) = window.withLock({ window in
            window.nextToSpill.map { ($0, window[$0].stored) }
        }) {
            guard case .held(let payload) = bytes else { return }
            do throws(Errno) {
                if spill.file.map({ $0.size >= Self.spillFileSize }) ?? true {
                    spill.file = try SpillFile(in: plan.spillFolder)
                }
                guard let file = spill.file else { return }
                let offset = try payload.withUnsafeBytes { bytes throws(Errno) in try file.append(bytes) }
                window.withLock { $0.spilled(index, as: .spilled(file, offset: offset)) }
                spill.failedAt = nil
            } catch {
                spill = Spill(file: nil, failedAt: now)
                spillWhileFull(&spill, now: now)
                // What was spilled went first: the oldest part of a replay goes before the newest.
                let seconds = Double(window.withLock { $0.heldSpan }) / 1e6
                logger.warning("""
                    replay: cannot spill to \(plan.spillFolder) (\(error)); it keeps what memory holds \
                    (\(plan.memoryLimit >> 20) MiB, the last \(Int(seconds)) s now)
                    """)
                return
            }
        }
    }

    public var replay: ReplayStatus {
        let status = window.withLock { window in
            (seconds: Double(window.heldSpan) / 1e6, memory: window.memoryBytes, spilled: window.spilledBytes)
        }
        return ReplayStatus(span: plan.span.seconds, seconds: status.seconds, memoryBytes: status.memory,
                            spilledBytes: status.spilled, saves: saves.load(ordering: .relaxed))
    }

    public func save(last length: Duration?, to path: String) throws(PodiumError) -> Double {
        guard !saving.exchange(true, ordering: .acquiring) else {
            throw .usage("save: one is being written; save again once it is done")
        }
        defer { saving.store(false, ordering: .releasing) }
        let subject = PodiumError.Subject.savedReplay(path)
        guard let target = MuxerTarget(recording: path) else {
            throw .usage("name a file ending in .mkv, .mp4 or .ts", about: subject)
        }
        if case .file(_, .flv, _) = target {
            throw .usage("name a file ending in .mkv, .mp4 or .ts", about: subject)
        }
        let described = streams.withLock { $0 }
        if let codec = described.first?.video?.codec { try target.validate(codec: codec) }
        if let sound = described.dropFirst().first?.audio { try target.validate(sound: sound.codec) }
        if FileStatus(path: path) != nil {
            throw .cannotCreate("the file exists (a save never replaces one); name a new file", about: subject)
        }
        try OutputCheck.creatable(path, as: subject, overwrite: false)
        let kept = window.withLock { $0.saved(last: length.map { $0.nanoseconds / 1_000 }) }
        guard !kept.isEmpty else {
            throw .usage("save: nothing is kept yet (the replay starts at the run's first keyframe)")
        }
        do throws(PodiumError) {
            let seconds = try write(kept, to: target, streams: described)
            saves.add(1, ordering: .relaxed)
            return seconds
        } catch {
            // What this save began is not a file anyone can use.
            unlink(path)
            throw error
        }
    }

    /// Writes `kept` (from a picture's keyframe on) to `target`, its times starting at zero.
    /// - Returns: how long it lasts, in seconds.
    private func write(_ kept: [ReplayWindow<Bytes>.Entry], to target: MuxerTarget, streams: [StreamDescription])
        throws(PodiumError) -> Double {
        guard let start = kept.first?.time,
              let muxer = MuxerSink(url: target, route: target.route(flushInterval: .seconds(1)), streams: streams,
                                    interrupt: StopFlag(), client: nil)
        else { throw .software("\(target): out of memory") }
        try muxer.open()
        muxer.startTimeline(at: start)
        var end = start
        for entry in kept {
            // Sound the encoders handed on after the first picture but heard before it.
            if !entry.isPicture && entry.time < start { continue }
            let payload: any PacketPayload
            switch entry.stored {
            case .held(let held):
                payload = held
            case .spilled(let file, let offset):
                guard let read = AVPacketPayload(reading: entry.byteCount, at: offset, from: file,
                                                 presentationTime: entry.presentationTime,
                                                 duration: entry.duration, isKeyframe: entry.isKeyframe)
                else { throw .io("\(target): could not read the replay's spilled packets back") }
                payload = read
            }
            if entry.isPicture { end = max(end, entry.time) }
            do {
                try muxer.write(EncodedPacket(streamID: entry.streamID, presentationTime: entry.presentationTime,
                                              duration: entry.duration, isKeyframe: entry.isKeyframe, payload: payload))
            } catch {
                throw .io("\(target): writing failed: \(error)")
            }
        }
        do {
            try muxer.finish()
        } catch {
            throw .io("\(target): could not finalize: \(error)")
        }
        let interval = streams.first?.video.map { 1 / Double(max(1, $0.framesPerSecond)) } ?? 0
        return Double(end - start) / 1e6 + interval
    }
}
