public import Synchronization

/// What the run's sound has done so far: its sources' threads and its encoder's thread write,
/// the stats reporter reads.
public final class SoundCounters: Sendable {
    /// The encoding, such as `aac 128k`.
    public let name: String
    /// Each source, in the order of `--audio`.
    public let sources: [SoundSourceCounters]
    /// Samples of each channel the sources delivered.
    public let captured = Atomic<Int>(0)
    /// Samples the sources delivered while the encoder was a whole ring behind: dropped.
    public let dropped = Atomic<Int>(0)
    /// Samples of silence put where a source delivered nothing (it was reconnecting).
    public let silenceFilled = Atomic<Int>(0)
    /// The peak of the last block of the mix, in tenths of a dBFS (`SoundLevel.floor` when silent).
    public let peakTenths = Atomic<Int>(Int(SoundLevel.floor * 10))
    public let bytes = Atomic<Int>(0)
    /// Placing, mixing and encoding a block.
    public let encode = StageTimer("audio encode")
    /// Nanoseconds of processor time the sound's threads (sources and encoder) used.
    public let processorTime = Atomic<Int>(0)

    /// - Parameter sources: each source's name as `--audio` gave it (`mic?gain=-6dB`).
    public init(name: String, sources: [String] = ["desktop"]) {
        self.name = name
        self.sources = sources.map(SoundSourceCounters.init(name:))
    }

    /// The last block's peak in dBFS.
    public var peak: Double { Double(peakTenths.load(ordering: .relaxed)) / 10 }

    /// Whether a source has lost its sound server and tries again.
    public var reconnecting: Bool { sources.contains { $0.reconnecting.load(ordering: .relaxed) } }
}

/// One sound source's figures.
public final class SoundSourceCounters: Sendable {
    public let name: String
    /// Set while the source has lost its sound server and tries again.
    public let reconnecting = Atomic<Bool>(false)
    /// The peak of its last block, before its gain, in tenths of a dBFS.
    public let peakTenths = Atomic<Int>(Int(SoundLevel.floor * 10))
    /// How far its sound lies from where its capture times put it, in samples (`SoundPlacing.offset`).
    public let offset = Atomic<Int>(0)

    init(name: String) {
        self.name = name
    }

    /// The last block's peak in dBFS.
    public var peak: Double { Double(peakTenths.load(ordering: .relaxed)) / 10 }
}
