import Foundation
public import PodiumCore
import Synchronization

/// Lends buffers from a small pool of its own, for frames made by a fake source.
func fakeBufferPool(count: Int) -> FrameBufferPool {
    FrameBufferPool((0..<count).map { index in
        let storage = HeapStorage(capacity: 64)
        return FrameBuffer(bytes: storage.bytes, capacity: 64, index: index, storage: storage)
    })
}

/// A screen for `PacedCapture`: each grab costs `cost` nanoseconds of the fake clock, and records
/// its time.
public final class FakeGrabber: FrameGrabber, Sendable {
    public let clock: FakeClock
    public let cost: UInt64
    public let pool: FrameBufferPool
    /// Whether the screen changes between looks; an unchanged one is grabbed only when asked.
    public let changes: Bool
    /// When the picture changes, on the clock, if not at every look (`changes` false).
    public let changesAt: [UInt64]
    public let failAt: UInt64?
    /// Whether it says when it changes (it never does): the loop sleeps on it between looks.
    public let waits: Bool
    /// How often the loop looked at it, and slept on it.
    public var looks: Int { counts.withLock { $0.looks } }
    public var waited: Int { counts.withLock { $0.waited } }
    private let counts = Mutex((looks: 0, waited: 0))
    /// When the last look was.
    private let lastLook = Mutex<UInt64?>(nil)
    /// Called after each grab with its sequence number, on the capture thread.
    private let afterGrab: @Sendable (UInt64) -> Void
    private let grabbed = Mutex<[UInt64]>([])

    public init(clock: FakeClock, cost: UInt64 = 1_000_000, buffers: Int = 8, changes: Bool = true,
                changesAt: [UInt64] = [], failAt: UInt64? = nil, waits: Bool = false,
                afterGrab: @escaping @Sendable (UInt64) -> Void = { _ in }) {
        self.clock = clock
        self.changesAt = changesAt
        self.waits = waits
        self.cost = cost
        self.changes = changes
        self.failAt = failAt
        self.afterGrab = afterGrab
        pool = fakeBufferPool(count: buffers)
    }

    public var description: String { "a fake screen" }

    /// The first byte of every frame grabbed.
    public static let screenByte: UInt8 = 0x42

    /// The slot time of every frame grabbed.
    public var slotTimes: [UInt64] { grabbed.withLock { $0 } }

    public func capture(sequence: UInt64, time: UInt64, slotTime: UInt64, evenIfUnchanged: Bool)
        throws(PodiumError) -> CaptureOutcome {
        counts.withLock { $0.looks += 1 }
        if sequence == failAt { throw .unavailable("the fake screen went away") }
        let now = clock.now()
        let since = lastLook.withLock { last in
            defer { last = now }
            return last
        }
        let changedSince = changesAt.contains { change in change <= now && since.map { change > $0 } ?? true }
        guard changes || changedSince || evenIfUnchanged else { return .unchanged }
        guard let buffer = pool.acquire() else { return .busy }
        grabbed.withLock { $0.append(slotTime) }
        // What the fake screen shows: neither black nor white.
        buffer.bytes.storeBytes(of: FakeGrabber.screenByte, as: UInt8.self)
        clock.advance(by: cost)
        afterGrab(sequence)
        // Every row changed (a stage that must redo the whole picture is told so by `nil`).
        return .frame(CapturedFrame(buffer: buffer, size: PixelSize(width: 4, height: 4), bytesPerRow: 16,
                                    captureTime: time, slotTime: slotTime, sequence: sequence,
                                    changedRows: RowBands(0..<4)))
    }

    /// Until the next change (`changesAt`), or the whole timeout on the fake clock.
    public func awaitChange(timeout: UInt64, or doorbell: Doorbell) -> Bool {
        guard waits else { return false }
        counts.withLock { $0.waited += 1 }
        let now = clock.now()
        clock.sleep(until: min(now + timeout, changesAt.first { $0 > now } ?? .max))
        return true
    }

    /// A paced source over this grabber; `idleFPS` 0 repeats nothing (a file's needs).
    public func source(fps: Int = 30, idleFPS: Int = 1) -> PacedCapture {
        PacedCapture(idleFPS: idleFPS > 0 ? FrameRate(idleFPS) : nil) { [self] () throws(PodiumError) in self }
    }
}

/// A push source the test drives: each `send` delivers frames on the source's thread, one slot of
/// the grid after another (or at the slots given), and `end` ends it, holding the last picture to
/// the slot given.
public final class FakePushSource: FrameSource {
    private enum Command: Sendable {
        case frame(slot: UInt64, changed: Bool)
        case end(slot: UInt64?)
    }

    public let fps: FrameRate
    public let pool: FrameBufferPool
    private let failure: PodiumError?
    private let commands = ConditionLock<[Command]>([])
    private let nextSlot = Mutex<UInt64>(0)

    /// - Parameter failsToOpen: the error opening it gives, to test a source that cannot start.
    public init(fps: Int = 30, buffers: Int = 16, failsToOpen: PodiumError? = nil) {
        self.fps = FrameRate(fps)
        pool = fakeBufferPool(count: buffers)
        failure = failsToOpen
    }

    /// Delivers `count` frames at the next slots of the grid, or at `slots` when given.
    /// - Parameter changed: whether the picture changed (`false`: a repeat, no rows changed).
    public func send(_ count: Int = 1, changed: Bool = true) {
        let slots = nextSlot.withLock { next in
            defer { next += UInt64(count) }
            return (0..<UInt64(count)).map { next + $0 }
        }
        send(slots: slots, changed: changed)
    }

    /// Delivers frames at the given slots of the grid.
    public func send(slots: [UInt64], changed: Bool = true) {
        if let last = slots.last { nextSlot.withLock { $0 = max($0, last + 1) } }
        commands.withLock(wake: .all) { $0 += slots.map { .frame(slot: $0, changed: changed) } }
    }

    /// Ends the source; the run's end on the grid is slot `slot` (the last picture is held to it).
    public func end(atSlot slot: UInt64? = nil) {
        commands.withLock(wake: .all) { $0.append(.end(slot: slot)) }
    }

    public func run(into fanOut: FanOut) {
        if let failure { return fanOut.failedToOpen(failure) }
        fanOut.opened("a fake push source")
        guard fanOut.waitForStart() else { return }
        let grid = FrameGrid(fps: fps)
        var sequence: UInt64 = 0
        var endSlot: UInt64?
        loop: while !fanOut.isStopping {
            let command = commands.wait(until: { !$0.isEmpty }, deadline: Date(timeIntervalSinceNow: 0.01)) {
                pending -> Command? in
                pending.isEmpty ? nil : pending.removeFirst()
            }
            switch command {
            case nil:
                continue
            case .frame(let slot, let changed):
                guard let buffer = pool.acquire() else {
                    fanOut.counters.noBuffer.add(1, ordering: .relaxed)
                    continue
                }
                var frame = CapturedFrame(buffer: buffer, size: PixelSize(width: 4, height: 4), bytesPerRow: 16,
                                          captureTime: fanOut.clock.now(), slotTime: grid.offset(ofSlot: slot),
                                          sequence: sequence, changedRows: changed ? RowBands(0..<4) : RowBands())
                frame.interval = grid.interval
                sequence += 1
                fanOut.deliver(frame)
            case .end(let slot):
                endSlot = slot
                break loop
            }
        }
        fanOut.finish(at: endSlot.map(grid.offset(ofSlot:)))
        if !fanOut.isStopping { fanOut.stopRun() }
    }
}
