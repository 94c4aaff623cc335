import Foundation

/// Follows a sound source's clock against the monotonic one. The times its blocks were heard, as
/// measured (the time each was read, less the latency the server reports), wobble by milliseconds
/// as reads are scheduled and the server revises its latency; the samples themselves come at a
/// steady rate, a few tenths of a percent off the nominal one at times. A delay-locked loop (as
/// F. Adriaensen's "Using a DLL to filter time") turns the measured times into times that follow
/// the samples: it learns the source's rate and offset and follows a change over several seconds,
/// so the resampler that keeps the sound on its places sees smooth places, and bends the pitch by
/// the source's true drift rather than by every wobble. It starts wide (1 Hz) to learn the rate
/// quickly and narrows by half each second to its bandwidth. A time further off than
/// `resyncAfter` (the source stalled, or came back) starts it afresh from that time.
///
/// Not thread-safe: a source's thread alone.
public struct SoundClock: Sendable {
    /// When the next block's first sample is expected, in nanoseconds; `nil` before the first.
    private var next: Double?
    /// Nanoseconds a sample, as learnt.
    private var period: Double
    /// Samples followed since it started afresh.
    private var followed = 0.0
    /// How fast it follows once settled, in hertz.
    private let bandwidth: Double

    /// A measured time further than this from the expected one starts the clock afresh.
    public static let resyncAfter = 60_000_000.0
    static let nominalPeriod = 1e9 / Double(SoundFormat.sampleRate)

    /// - Parameter bandwidth: how fast it follows once settled, in hertz: a change is followed
    ///   over about `1 / bandwidth` seconds.
    public init(bandwidth: Double = 0.1) {
        self.bandwidth = bandwidth
        period = Self.nominalPeriod
    }

    /// The rate learnt, against the nominal one: 0.997 for a source 0.3 % slow.
    public var rate: Double { Self.nominalPeriod / period }

    /// Forgets the source's place (it reconnected); the next time measured is taken as it is.
    public mutating func reset() {
        next = nil
        followed = 0
    }

    /// The time to stamp a block of `frames` samples with, whose first sample was measured to be
    /// heard at `measured` (nanoseconds on the monotonic clock).
    public mutating func stamp(measured: UInt64, frames: Int) -> UInt64 {
        let measuredTime = Double(measured)
        var time = measuredTime
        if let expected = next, abs(measuredTime - expected) <= Self.resyncAfter {
            let error = measuredTime - expected
            let rate = Double(SoundFormat.sampleRate)
            let width = max(bandwidth, pow(0.5, followed / rate))
            // The gains for an update every `frames` samples.
            let omega = 2 * Double.pi * width * Double(max(1, frames)) / rate
            time = expected + 2.squareRoot() * omega * error
            period += omega * omega * error / Double(max(1, frames))
            // The rate stays within 1 % of the nominal: beyond it, the measurements are at fault.
            period = min(max(period, Self.nominalPeriod * 0.99), Self.nominalPeriod * 1.01)
        }
        next = time + period * Double(max(0, frames))
        followed += Double(max(0, frames))
        return UInt64(max(0, time.rounded()))
    }
}
