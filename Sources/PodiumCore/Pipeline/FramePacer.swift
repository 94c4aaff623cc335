/// Paces a capture loop on absolute deadlines: slot `k` is due at `start + k × interval`.
///
/// When the loop falls behind, the overdue slots are skipped and counted, and the loop takes the
/// latest slot that is due; it never runs several frames back to back to catch up.
/// Not thread-safe: confine to the capture thread.
public struct FramePacer {
    /// What `nextSlot` decided.
    public struct Slot: Equatable, Sendable {
        /// The deadline of the slot taken, in the clock's nanoseconds.
        public var deadline: UInt64
        /// How many earlier slots were missed and skipped.
        public var skipped: Int
    }

    public let interval: UInt64
    private var start: UInt64?
    private var nextIndex: UInt64 = 0

    public init(interval: UInt64) {
        precondition(interval > 0, "a pacing interval must be positive")
        self.interval = interval
    }

    /// Waits for the next slot (sleeping no longer than `maximumSleep` at a time, so the caller can
    /// check for a stop request), and returns it; `nil` when `maximumSleep` passed before it was due.
    public mutating func nextSlot(clock: any PacingClock, maximumSleep: UInt64 = .max) -> Slot? {
        let now = clock.now()
        guard let start else {
            self.start = now
            nextIndex = 1
            return Slot(deadline: now, skipped: 0)
        }
        let due = start + nextIndex * interval
        if now < due {
            let wake = due - now > maximumSleep ? now + maximumSleep : due
            clock.sleep(until: wake)
            guard wake == due else { return nil }
            nextIndex += 1
            return Slot(deadline: due, skipped: 0)
        }
        // The latest slot already due is taken now; the ones between it and `due` are lost.
        let latest = (now - start) / interval
        let skipped = Int(latest - nextIndex)
        nextIndex = latest + 1
        return Slot(deadline: start + latest * interval, skipped: skipped)
    }
}
