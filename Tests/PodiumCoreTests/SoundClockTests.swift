import PodiumCore
import Testing

/// The sound clock: measured times that wobble become times that follow the samples, at the
/// source's own rate; a time far off starts it afresh.
@Suite struct SoundClockTests {
    static let blockFrames = 480
    static let nominal = 10_000_000.0

    /// A source 0.3 % slow whose measured times wobble by ±5 ms (a latency estimate revised, a
    /// read scheduled late): after a few seconds the stamps are within a millisecond of the true
    /// times, and the rate learnt is the source's.
    @Test func followsASlowSourceThroughWobblingMeasurements() {
        var clock = SoundClock()
        let period = Self.nominal / 0.997
        var generator = SystemRandomNumberGenerator()
        var worstLate = 0.0
        for block in 0..<3_000 {
            let truth = 1e9 + Double(block) * period
            let wobble = Double(Int.random(in: -5_000_000...5_000_000, using: &generator))
            let stamp = Double(clock.stamp(measured: UInt64(truth + wobble), frames: Self.blockFrames))
            if block >= 1_000 { worstLate = max(worstLate, abs(stamp - truth)) }
        }
        #expect(worstLate < 1_500_000, "after 10 s, stamps within 1.5 ms of the truth: \(worstLate / 1e6) ms")
        #expect(abs(clock.rate - 0.997) < 0.0003, "rate \(clock.rate)")
    }

    /// Steady measurements come out as they went in.
    @Test func steadyTimesPassUnchanged() {
        var clock = SoundClock()
        for block in 0..<100 {
            let time = UInt64(5e8 + Double(block) * Self.nominal)
            #expect(clock.stamp(measured: time, frames: Self.blockFrames) == time)
        }
    }

    /// A measurement further off than `resyncAfter` (the server stalled) is taken as it is, and so
    /// is the first after `reset` (a reconnection).
    @Test func aJumpOrAResetStartsAfresh() {
        var clock = SoundClock()
        for block in 0..<100 { _ = clock.stamp(measured: UInt64(Double(block) * Self.nominal), frames: 480) }
        let jumped = UInt64(100 * Self.nominal + 200_000_000)
        #expect(clock.stamp(measured: jumped, frames: 480) == jumped)
        clock.reset()
        #expect(clock.stamp(measured: 42, frames: 480) == 42)
    }
}
