/// Paces a capture loop on absolute deadlines of the frame-rate grid: slot `k` is due at
/// `start + FrameGrid.offset(ofSlot: k)`.
///
/// When the loop falls behind, the overdue slots are skipped and counted, and the loop takes the
/// latest slot that is due; it never runs several frames back to back to catch up.
/// Not thread-safe: confine to the capture thread.
public struct FramePacer {
    /// What `nextSlot` decided.
    public struct Slot: Equatable, Sendable {
        /// The slot's number on the grid: slot 0 is due at the start.
        public var index: UInt64
        /// The deadline of the slot taken, in the clock's nanoseconds.
        public var deadline: UInt64
        /// How many earlier slots were missed and skipped.
        public var skipped: Int
    }

    public let grid: FrameGrid
    private var start: UInt64?
    private var nextIndex: UInt64 = 0
    /// The deadline of the last slot taken (or passed over).
    public private(set) var lastDeadline: UInt64?

    /// Slots every `interval` nanoseconds.
    /// - Parameter start: when slot 0 is due; `nil` takes the first call's time.
    public init(interval: UInt64, start: UInt64? = nil) {
        self.init(grid: FrameGrid(interval: interval), start: start)
    }

    /// - Parameter start: when slot 0 is due; `nil` takes the first call's time.
    public init(grid: FrameGrid, start: UInt64? = nil) {
        self.grid = grid
        self.start = start
    }

    /// A pacer on `grid` that goes on from this one: its slot 0 is the last slot this one took,
    /// so the next comes one interval of the new grid after it (at once if that is past).
    public func retimed(to grid: FrameGrid) -> FramePacer {
        var pacer = FramePacer(grid: grid, start: lastDeadline ?? start)
        if lastDeadline != nil { pacer.nextIndex = 1 }
        return pacer
    }

    /// Passes over the slots due before `now` without taking them, and without counting them as
    /// missed: a loop that waited for a change on purpose goes on at the slot due now, or the next.
    /// - Returns: how many were passed over.
    public mutating func pass(until now: UInt64) -> Int {
        guard let start, now > start + grid.offset(ofSlot: nextIndex) else { return 0 }
        // (A deadline rounded to the nanosecond may fall in the slot before it on the grid.)
        let latest = max(grid.slot(at: now - start - 1), nextIndex)
        let passed = Int(latest + 1 - nextIndex)
        nextIndex = latest + 1
        lastDeadline = start + grid.offset(ofSlot: latest)
        return passed
    }

    /// The deadline of the last slot due before `end`; `nil` when none is (or the pacer has not started).
    public func deadline(ofLastSlotBefore end: UInt64) -> UInt64? {
        guard let start, end > start else { return nil }
        return start + grid.offset(ofSlot: grid.slot(at: end - start - 1))
    }

    /// Waits for the next slot (sleeping no longer than `maximumSleep` at a time, so the caller can
    /// check for a stop request), and returns it; `nil` when `maximumSleep` passed before it was due.
    public mutating func nextSlot(clock: any PacingClock, maximumSleep: UInt64 = .max) -> Slot? {
        let now = clock.now()
        guard let start else {
            self.start = now
            nextIndex = 1
            lastDeadline = now
            return Slot(index: 0, deadline: now, skipped: 0)
        }
        let due = start + grid.offset(ofSlot: nextIndex)
        if now < due {
            let wake = due - now > maximumSleep ? now + maximumSleep : due
            clock.sleep(until: wake)
            guard wake == due else { return nil }
            nextIndex += 1
            lastDeadline = due
            return Slot(index: nextIndex - 1, deadline: due, skipped: 0)
        }
        // The latest slot already due is taken now; the ones between it and `due` are lost.
        let latest = max(grid.slot(at: now - start), nextIndex)
        let skipped = Int(latest - nextIndex)
        nextIndex = latest + 1
        lastDeadline = start + grid.offset(ofSlot: latest)
        return Slot(index: latest, deadline: start + grid.offset(ofSlot: latest), skipped: skipped)
    }
}
