import PodiumCore
import Testing

/// The sound clock: measured times that wobble become times that follow the samples, at the
/// source's own rate; a time far off is held until it is known whether the line moved.
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

    /// A block far off the line (a read scheduled 100 ms late) is held until the next comes back
    /// on it, and then goes on it; as many in a row as settle it (the source lost sound, or the
    /// graph's quantum changed) move the line to where they agree, the held blocks with it, so
    /// the stamps move at once, by the jump, never by half of one. A reset (a reconnection) starts
    /// it afresh.
    @Test func aStrayIsHeldForTheLineAndAJumpThatStaysMovesIt() {
        var clock = SoundClock()
        func time(_ block: Int, _ shift: Double = 0) -> UInt64 { UInt64(1e9 + Double(block) * Self.nominal + shift) }
        for block in 0..<100 { _ = clock.stamp(measured: time(block), frames: Self.blockFrames) }
        #expect(clock.takeHeldStart() == time(0), "the first blocks, once it settled")
        #expect(clock.stamp(measured: time(100, 100e6), frames: Self.blockFrames) == nil)
        #expect(clock.takeHeldStart() == nil)
        #expect(clock.stamp(measured: time(101), frames: Self.blockFrames) == time(101))
        #expect(clock.takeHeldStart() == time(100), "the stray goes on the line, before the block after it")
        var stamps: [UInt64?] = []
        var heldStarts: [UInt64?] = []
        for block in 102..<120 {
            stamps.append(clock.stamp(measured: time(block, 37e6), frames: Self.blockFrames))
            heldStarts.append(clock.takeHeldStart())
        }
        #expect(stamps[..<5].allSatisfy { $0 == nil }, "held while it is not known whether the line moved: \(stamps)")
        #expect(heldStarts[4] == time(102, 37e6), "then they go where they agree: \(heldStarts)")
        #expect(Array(stamps[5...]) == (107..<120).map { Optional(time($0, 37e6)) }, "on the new line: \(stamps)")
        clock.reset()
        #expect(clock.stamp(measured: 42, frames: Self.blockFrames) == nil)
    }
}
