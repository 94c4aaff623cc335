import Foundation

/// Follows a sound source's clock against the monotonic one. The times its blocks were heard, as
/// measured (the time each was read, less the latency the server reports; or PipeWire's graph
/// time), wobble by milliseconds as reads are scheduled and the server revises its latency; the
/// samples themselves come at a steady rate, a few tenths of a percent off the nominal one at
/// times. A delay-locked loop (as F. Adriaensen's "Using a DLL to filter time") turns the
/// measured times into times that follow the samples: it learns the source's rate and offset and
/// follows a change over several seconds, so the resampler that keeps the sound on its places sees
/// smooth places, and bends the pitch by the source's true drift rather than by every wobble. It
/// starts wide (1 Hz) to learn the rate quickly and narrows by half each second to its bandwidth.
///
/// It starts where the first blocks agree: their times' median, not the first alone (a stream's
/// first block often comes off the line its others keep, by 30 ms on PipeWire). Those blocks are
/// held by the caller meanwhile and placed on that line once it is known (`takeHeldStart`), so
/// the resampler has nothing to pull in over the first seconds. A block far off the line
/// (`resyncAfter`) is held likewise until the next shows whether the line moved: back on it, the
/// held blocks go on it; as many in a row as settle it (the source lost sound, or the graph's
/// quantum changed and its cycles with it), the line moves to where they agree, at once and
/// with the held blocks on it, keeping the rate learnt.
///
/// Not thread-safe: a source's thread alone.
public struct SoundClock: Sendable {
    /// When the next block's first sample is expected, in nanoseconds; `nil` while it settles.
    private var next: Double?
    /// Nanoseconds a sample, as learnt.
    private var period: Double
    /// Samples followed since it settled.
    private var followed = 0.0
    /// How fast it follows once settled, in hertz.
    private let bandwidth: Double
    /// While blocks are held (it settles, or they are off the line): where each puts the first
    /// sample held, and the samples held.
    private var held: [Double] = []
    private var heldFrames = 0
    /// Where the line put the first block held off it.
    private var heldOnLine = 0.0
    /// When the first block held was heard, once that is known; taken once.
    private var heldStart: Double?
    private let settlingBlocks: Int

    /// A measured time further than this from the expected one is off the line: beyond the wobble
    /// of a latency report (±10 ms through PipeWire's PulseAudio interface at its usual quantum).
    public static let resyncAfter = 20_000_000.0
    /// The blocks whose times are agreed on before the first stamp, and that are off the line in
    /// a row before it moves, unless told otherwise.
    public static let settlingBlocks = 5
    static let nominalPeriod = 1e9 / Double(SoundFormat.sampleRate)

    /// - Parameters:
    ///   - bandwidth: how fast it follows once settled, in hertz: a change is followed over about
    ///     `1 / bandwidth` seconds.
    ///   - settlingBlocks: the blocks agreed on before the first stamp (1: the first is taken).
    public init(bandwidth: Double = 0.1, settlingBlocks: Int = Self.settlingBlocks) {
        self.bandwidth = bandwidth
        self.settlingBlocks = max(1, settlingBlocks)
        period = Self.nominalPeriod
        held.reserveCapacity(self.settlingBlocks)
    }

    /// The rate learnt, against the nominal one: 0.997 for a source 0.3 % slow.
    public var rate: Double { Self.nominalPeriod / period }

    /// Forgets the source's place (it reconnected): it settles again.
    public mutating func reset() {
        next = nil
        followed = 0
        held.removeAll(keepingCapacity: true)
        heldFrames = 0
        heldStart = nil
    }

    /// When the blocks held begin, once that is known (their samples follow one another from
    /// there, and come before the block just stamped, if any); `nil` before, and after it was taken.
    public mutating func takeHeldStart() -> UInt64? {
        defer { heldStart = nil }
        return heldStart.map { UInt64(max(0, $0.rounded())) }
    }

    /// The time to stamp a block of `frames` samples with, whose first sample was measured to be
    /// heard at `measured` (nanoseconds on the monotonic clock); `nil` while it is held: until
    /// `takeHeldStart` says where it goes.
    public mutating func stamp(measured: UInt64, frames: Int) -> UInt64? {
        let measuredTime = Double(measured)
        let frames = max(0, frames)
        guard let expected = next else {
            guard hold(measuredTime, frames: frames) else { return nil }
            next = heldStart.map { $0 + Double(heldFrames) * period }
            release()
            return nil
        }
        let error = measuredTime - expected
        guard abs(error) <= Self.resyncAfter else {
            if held.isEmpty { heldOnLine = expected }
            next = expected + period * Double(frames)
            if hold(measuredTime, frames: frames) {
                // The line moved: it goes on from where the held blocks agree.
                next = heldStart.map { $0 + Double(heldFrames) * period }
                release()
            }
            return nil
        }
        if !held.isEmpty {
            // Back on the line: the blocks held were strays, and go on it.
            heldStart = heldOnLine
            release()
        }
        let rate = Double(SoundFormat.sampleRate)
        let width = max(bandwidth, pow(0.5, followed / rate))
        // The gains for an update every `frames` samples.
        let omega = 2 * Double.pi * width * Double(max(1, frames)) / rate
        let time = expected + 2.squareRoot() * omega * error
        period += omega * omega * error / Double(max(1, frames))
        // The rate stays within 1 % of the nominal: beyond it, the measurements are at fault.
        period = min(max(period, Self.nominalPeriod * 0.99), Self.nominalPeriod * 1.01)
        next = time + period * Double(frames)
        followed += Double(frames)
        return UInt64(max(0, time.rounded()))
    }

    /// Holds a block measured at `measured`; whether as many are held as settle a line, which
    /// `heldStart` then holds: where most of them agree the first held sample was heard.
    private mutating func hold(_ measured: Double, frames: Int) -> Bool {
        held.append(measured - Double(heldFrames) * period)
        heldFrames += frames
        guard held.count >= settlingBlocks else { return false }
        held.sort()
        heldStart = held[held.count / 2]
        return true
    }

    /// Lets go of the blocks held, once `heldStart` says where they go.
    private mutating func release() {
        held.removeAll(keepingCapacity: true)
        heldFrames = 0
    }
}
