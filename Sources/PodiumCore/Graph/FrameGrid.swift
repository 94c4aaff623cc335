/// The run's frame-rate grid: slot `k` begins `k × period / slotsPerPeriod` nanoseconds after
/// slot 0, computed exactly (30 fps is 1 s for 30 slots, not 33 333 333 ns a slot), so the grid
/// never drifts from the rate. Frame times are on it: no two frames share a tick, and consecutive
/// frames are at least one interval apart.
///
/// It also places the frames of a push source: each takes the slot nearest its capture time, or
/// the slot after the previous frame's when that one is taken; a frame that would then sit more
/// than half an interval ahead of its capture time is dropped, so the timeline never runs ahead
/// of real time. Not thread-safe: confine to the thread that delivers the source's frames.
public struct FrameGrid: Sendable {
    /// `slotsPerPeriod` slots take `period` nanoseconds.
    private let period: UInt64
    private let slotsPerPeriod: UInt64
    private var lastSlot: UInt64?

    /// A slot every `interval` nanoseconds.
    public init(interval: UInt64) {
        precondition(interval > 0, "a grid interval must be positive")
        period = interval
        slotsPerPeriod = 1
    }

    /// `fps` slots a second.
    public init(fps: FrameRate) {
        period = 1_000_000_000
        slotsPerPeriod = UInt64(max(1, fps.framesPerSecond))
    }

    /// The time from one slot to the next, rounded down to the nanosecond.
    public var interval: UInt64 { offset(ofSlot: 1) }

    /// When slot `index` begins, in nanoseconds after slot 0.
    public func offset(ofSlot index: UInt64) -> UInt64 {
        Self.scale(index, by: period, over: slotsPerPeriod)
    }

    /// The last slot begun `elapsed` nanoseconds after slot 0.
    public func slot(at elapsed: UInt64) -> UInt64 {
        Self.scale(elapsed, by: slotsPerPeriod, over: period)
    }

    /// The slot time (`CapturedFrame.slotTime`) of a push source's frame `elapsed` nanoseconds
    /// after slot 0, or `nil` when it comes too soon after the previous frame for a slot of its
    /// own (drop it).
    public mutating func place(at elapsed: UInt64) -> UInt64? {
        let nearest = slot(at: elapsed + offset(ofSlot: 1) / 2)
        let slot = lastSlot.map { max(nearest, $0 + 1) } ?? nearest
        let time = offset(ofSlot: slot)
        guard time <= elapsed + offset(ofSlot: 1) / 2 else { return nil }
        lastSlot = slot
        return time
    }

    /// `value × multiplier / divisor`, rounded down, in full width: a count of nanoseconds times
    /// a billion overflows 64 bits.
    private static func scale(_ value: UInt64, by multiplier: UInt64, over divisor: UInt64) -> UInt64 {
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        if !overflow { return product / divisor }
        return divisor.dividingFullWidth(value.multipliedFullWidth(by: multiplier)).quotient
    }
}
