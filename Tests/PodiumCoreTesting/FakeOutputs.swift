public import PodiumCore
import Synchronization

/// A packet as a recording output or sink kept it.
public struct RecordedPacket: Sendable, Equatable {
    public var stream: Int
    public var presentationTime: Int64
    public var duration: Int64
    public var isKeyframe: Bool
}

/// A sink that keeps what it is offered.
public final class RecordingSink: GuestSink {
    public let program: Program
    private let received = Mutex<[RecordedPacket]>([])
    private let closed = Atomic<Bool>(false)

    public init(program: Program) { self.program = program }

    public var packets: [RecordedPacket] { received.withLock { $0 } }
    public var isClosed: Bool { closed.load(ordering: .relaxed) }

    public func start(_ streams: [StreamDescription]) throws(PodiumError) {}

    public func offer(_ packet: EncodedPacket) {
        received.withLock {
            $0.append(RecordedPacket(stream: packet.streamID, presentationTime: packet.presentationTime,
                                     duration: packet.duration, isKeyframe: packet.isKeyframe))
        }
    }

    public func close() { closed.store(true, ordering: .relaxed) }
}

/// An output with a thread of its own that keeps what it writes; it can be made to fail, on open
/// or after some packets, as a disk that fills or a peer that goes away.
public final class RecordingOutput: RunOutput {
    public let name: String
    public let program: Program
    public let opensAtOnce: Bool
    public let isLocal: Bool
    private let failsToOpen: PodiumError?
    private let failsAfter: Int?
    private let queue = BoundedQueue(capacity: 1_000, policy: KeyframeGate())
    private let written = Mutex<[RecordedPacket]>([])
    private let failed = Atomic<Bool>(false)
    private let opened = Atomic<Bool>(false)

    /// - Parameters:
    ///   - failsToOpen: the error its first attempt to open gives.
    ///   - failsAfter: writing fails (74) after this many packets.
    public init(name: String = "recording", program: Program, opensAtOnce: Bool = true, isLocal: Bool = true,
                failsToOpen: PodiumError? = nil, failsAfter: Int? = nil) {
        self.name = name
        self.program = program
        self.opensAtOnce = opensAtOnce
        self.isLocal = isLocal
        self.failsToOpen = failsToOpen
        self.failsAfter = failsAfter
    }

    public var packets: [RecordedPacket] { written.withLock { $0 } }
    public var hasWritten: Bool { !packets.isEmpty }
    public var hasFailed: Bool { failed.load(ordering: .relaxed) }
    /// Whether it got as far as opening.
    public var isOpen: Bool { opened.load(ordering: .relaxed) }

    public func run(hub: StreamHub, clock: any PacingClock, opened: (PodiumError?) -> Void) throws(PodiumError) {
        if let failsToOpen {
            opened(failsToOpen)
            failed.store(true, ordering: .relaxed)
            throw failsToOpen
        }
        self.opened.store(true, ordering: .relaxed)
        let sink = QueueSink(queue: queue)
        hub.subscribe(sink, to: program)
        opened(nil)
        defer { hub.unsubscribe(sink) }
        while let packet = queue.pop() {
            let count = written.withLock { packets in
                packets.append(RecordedPacket(stream: packet.streamID, presentationTime: packet.presentationTime,
                                              duration: packet.duration, isKeyframe: packet.isKeyframe))
                return packets.count
            }
            if let failsAfter, count >= failsAfter {
                failed.store(true, ordering: .relaxed)
                queue.close()
                throw .io("\(name): writing failed: no space left on device")
            }
        }
    }

    public func close() { queue.close() }
    public func abort() { queue.close() }
    public func abortIfOpening() {}

    /// What the hub offers to: the output's queue.
    private final class QueueSink: PacketSink {
        let queue: BoundedQueue<KeyframeGate>
        init(queue: BoundedQueue<KeyframeGate>) { self.queue = queue }
        func offer(_ packet: EncodedPacket) { _ = queue.push(packet) }
    }
}

/// A stage that keeps the frames it takes, for tests of the fan-out and the sources.
public final class RecordingStage: FrameStage {
    public let slot = LatestSlot<CapturedFrame>()
    private let frames = Mutex<[(sequence: UInt64, slotTime: UInt64, changedRows: RowBands?, firstByte: UInt8)]>([])
    private let drops = Atomic<Int>(0)
    /// Called with each frame taken, on the stage's thread.
    private let onFrame: @Sendable (CapturedFrame) -> Void

    public init(onFrame: @escaping @Sendable (CapturedFrame) -> Void = { _ in }) {
        self.onFrame = onFrame
    }

    /// The first byte of each frame taken: what it shows.
    public var firstBytes: [UInt8] { frames.withLock { $0.map(\.firstByte) } }

    public var sequences: [UInt64] { frames.withLock { $0.map(\.sequence) } }
    public var slotTimes: [UInt64] { frames.withLock { $0.map(\.slotTime) } }
    public var changedRows: [RowBands?] { frames.withLock { $0.map(\.changedRows) } }
    /// Frames taken, and frames replaced before it took them.
    public var seen: Int { frames.withLock { $0.count } + drops.load(ordering: .relaxed) }
    public var dropped: Int { drops.load(ordering: .relaxed) }

    public func countDrop() { drops.add(1, ordering: .relaxed) }

    public func open(in context: StageContext) throws(PodiumError) {}

    public func run(_ worker: Void, in context: StageContext) {
        while let frame = slot.take() {
            let first = frame.buffer.bytes.load(as: UInt8.self)
            frames.withLock { $0.append((frame.sequence, frame.slotTime, frame.changedRows, first)) }
            onFrame(frame)
            frame.buffer.release()
        }
    }
}
