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
            let stamp = clock.stamp(measured: UInt64(truth + wobble), frames: Self.blockFrames)
            if block >= 1_000, let stamp { worstLate = max(worstLate, abs(Double(stamp) - truth)) }
        }
        #expect(worstLate < 1_500_000, "after 10 s, stamps within 1.5 ms of the truth: \(worstLate / 1e6) ms")
        #expect(abs(clock.rate - 0.997) < 0.0003, "rate \(clock.rate)")
    }

    /// Steady measurements come out as they went in, once the first blocks settled the clock.
    @Test func steadyTimesPassUnchanged() {
        var clock = SoundClock()
        for block in 0..<100 {
            let time = UInt64(5e8 + Double(block) * Self.nominal)
            #expect(clock.stamp(measured: time, frames: Self.blockFrames) == (block < 5 ? nil : time))
        }
    }

    /// A first block 32 ms off the line the others keep (as PipeWire's first cycle comes) moves
    /// no stamp: the clock starts where most of the first blocks agree.
    @Test func aFirstBlockOffTheLineIsOutvoted() {
        var clock = SoundClock()
        for block in 0..<50 {
            let time = 5e8 + Double(block) * Self.nominal
            let stamp = clock.stamp(measured: UInt64(time + (block == 0 ? 32e6 : 0)), frames: Self.blockFrames)
            #expect(stamp == (block < 5 ? nil : UInt64(time)), "block \(block)")
        }
    }

    /// A block far off the line (a read scheduled 100 ms late) is stamped on it; as many in a row as
    /// settle it (the server stalled and lost sound) start it afresh there, and so does a reset (a
    /// reconnection): the stamps move at once, by the jump, never by half of one.
    @Test func aStrayIsStampedOnTheLineAndAJumpThatStaysStartsAfresh() {
        var clock = SoundClock()
        func time(_ block: Int, _ shift: Double = 0) -> UInt64 { UInt64(1e9 + Double(block) * Self.nominal + shift) }
        for block in 0..<100 { _ = clock.stamp(measured: time(block), frames: Self.blockFrames) }
        #expect(clock.stamp(measured: time(100, 100e6), frames: Self.blockFrames) == time(100))
        #expect(clock.stamp(measured: time(101), frames: Self.blockFrames) == time(101))
        var stamps: [UInt64?] = []
        for block in 102..<120 { stamps.append(clock.stamp(measured: time(block, 200e6), frames: Self.blockFrames)) }
        #expect(Array(stamps.prefix(4)) == (102..<106).map { Optional(time($0)) },
                "four strays on the old line: \(stamps)")
        #expect(stamps[4..<9].allSatisfy { $0 == nil }, "then it settles again: \(stamps)")
        #expect(Array(stamps[9...]) == (111..<120).map { Optional(time($0, 200e6)) }, "on the new line: \(stamps)")
        clock.reset()
        #expect(clock.stamp(measured: 42, frames: Self.blockFrames) == nil)
    }
}
