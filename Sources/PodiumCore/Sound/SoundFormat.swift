import Foundation

/// The one format sound travels in between a source and its encoder: 48 kHz, two channels,
/// 32-bit float samples interleaved (left, right, left, …), as sound servers deliver it natively.
public enum SoundFormat {
    public static let sampleRate = 48_000
    public static let channels = 2

    /// The place on the run's sound timeline (samples since the run's first slot) of a sample
    /// heard `nanoseconds` after that slot; negative before it.
    public static func position(ofNanoseconds nanoseconds: Int64) -> Int64 {
        // Exact for runs of centuries: 2^63 ns is 292 years, and the product is taken in full width.
        let product = nanoseconds.multipliedFullWidth(by: Int64(sampleRate))
        return Int64(1_000_000_000).dividingFullWidth(product).quotient
    }

    /// How long `frames` samples of each channel last, in nanoseconds.
    public static func nanoseconds(ofFrames frames: Int) -> UInt64 {
        UInt64(max(0, frames)) * 1_000_000_000 / UInt64(sampleRate)
    }
}

/// How loud a block of sound is: its peak, in decibels of full scale (0 is the loudest a sample can be).
public enum SoundLevel {
    /// Below this a block is silent.
    public static let floor = -90.0

    /// The peak of `samples` in dBFS, `floor` at most quiet.
    public static func peak(of samples: UnsafeBufferPointer<Float>) -> Double {
        var peak: Float = 0
        for sample in samples { peak = max(peak, abs(sample)) }
        guard peak > 0 else { return floor }
        return max(floor, 20 * log10(Double(peak)))
    }
}
