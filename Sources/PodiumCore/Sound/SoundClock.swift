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
/// held by the caller meanwhile and placed on that line once it is known (`takeSettledStart`), so
/// the resampler has nothing to pull in over the first seconds. A block far off the line
/// (`resyncAfter`) is stamped on it; only as many in a row (the source stalled and lost sound, or
/// came back) start it afresh.
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
    /// While it settles: where each block puts the first sample taken since, and the samples taken.
    private var settling: [Double] = []
    private var settlingFrames = 0
    /// When the first block held while it settled was heard, once it settled; taken once.
    private var settledStart: Double?
    /// Blocks in a row far off the line.
    private var strays = 0
    private let settlingBlocks: Int

    /// A measured time further than this from the expected one is off the line.
    public static let resyncAfter = 60_000_000.0
    /// The blocks whose times are agreed on before the first stamp, and that are off the line in
    /// a row before it starts afresh, unless told otherwise.
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
        settling.reserveCapacity(self.settlingBlocks)
    }

    /// The rate learnt, against the nominal one: 0.997 for a source 0.3 % slow.
    public var rate: Double { Self.nominalPeriod / period }

    /// Forgets the source's place (it reconnected): it settles again.
    public mutating func reset() {
        next = nil
        followed = 0
        settling.removeAll(keepingCapacity: true)
        settlingFrames = 0
        strays = 0
        settledStart = nil
    }

    /// When the blocks held while the clock settled begin, once it has (their samples follow one
    /// another from there); `nil` before, and after it was taken.
    public mutating func takeSettledStart() -> UInt64? {
        defer { settledStart = nil }
        return settledStart.map { UInt64(max(0, $0.rounded())) }
    }

    /// The time to stamp a block of `frames` samples with, whose first sample was measured to be
    /// heard at `measured` (nanoseconds on the monotonic clock); `nil` while the clock settles:
    /// the block is held until `takeSettledStart` says where it goes.
    public mutating func stamp(measured: UInt64, frames: Int) -> UInt64? {
        let measuredTime = Double(measured)
        let frames = max(0, frames)
        guard let expected = next else {
            settling.append(measuredTime - Double(settlingFrames) * period)
            settlingFrames += frames
            guard settling.count >= settlingBlocks else { return nil }
            settling.sort()
            settledStart = settling[settling.count / 2]
            next = settling[settling.count / 2] + Double(settlingFrames) * period
            settling.removeAll(keepingCapacity: true)
            settlingFrames = 0
            return nil
        }
        let error = measuredTime - expected
        var time = expected
        if abs(error) > Self.resyncAfter {
            strays += 1
            guard strays < settlingBlocks else {
                reset()
                return stamp(measured: measured, frames: frames)
            }
        } else {
            strays = 0
            let rate = Double(SoundFormat.sampleRate)
            let width = max(bandwidth, pow(0.5, followed / rate))
            // The gains for an update every `frames` samples.
            let omega = 2 * Double.pi * width * Double(max(1, frames)) / rate
            time = expected + 2.squareRoot() * omega * error
            period += omega * omega * error / Double(max(1, frames))
            // The rate stays within 1 % of the nominal: beyond it, the measurements are at fault.
            period = min(max(period, Self.nominalPeriod * 0.99), Self.nominalPeriod * 1.01)
        }
        next = time + period * Double(frames)
        followed += Double(frames)
        return UInt64(max(0, time.rounded()))
    }
}
