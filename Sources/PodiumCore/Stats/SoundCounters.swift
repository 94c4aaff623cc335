public import Synchronization

/// What the run's sound has done so far: its source's thread and its encoder's thread write,
/// the stats reporter reads.
public final class SoundCounters: Sendable {
    /// The encoding, such as `aac 128k`.
    public let name: String
    /// Samples of each channel the source delivered.
    public let captured = Atomic<Int>(0)
    /// Samples the source delivered while the encoder was a whole ring behind: dropped.
    public let dropped = Atomic<Int>(0)
    /// Samples of silence put where the source delivered nothing (it was reconnecting).
    public let silenceFilled = Atomic<Int>(0)
    /// The peak of the last block, in tenths of a dBFS (`SoundLevel.floor` when silent).
    public let peakTenths = Atomic<Int>(Int(SoundLevel.floor * 10))
    /// Set while the source has lost its sound server and tries again.
    public let reconnecting = Atomic<Bool>(false)
    public let bytes = Atomic<Int>(0)
    public let encode = StageTimer("audio encode")

    public init(name: String) {
        self.name = name
    }

    /// The last block's peak in dBFS.
    public var peak: Double { Double(peakTenths.load(ordering: .relaxed)) / 10 }
}
