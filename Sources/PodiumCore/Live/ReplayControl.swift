/// The last minutes of a run, kept as it goes (`--replay 2m`), and written to a file on demand
/// (`save`) while the run goes on.
public protocol ReplayControl: Sendable {
    /// Writes the last `length` of the run (all that is kept for `nil`) to `path`, a file that does
    /// not exist yet, from the keyframe at or before its start; returns once it is written.
    /// - Returns: how long the file lasts, in seconds.
    /// - Throws: 73 for a file that cannot be created, 74 when writing it failed (nothing is left
    ///   of it), a usage error while nothing is kept yet.
    func save(last length: Duration?, to path: String) throws(PodiumError) -> Double
    /// What is kept now.
    var replay: ReplayStatus { get }
}

/// What a replay keeps, as `--stats-json` and `status` say it.
public struct ReplayStatus: Sendable, Equatable, Codable {
    /// What a save holds at most (`--replay`), in seconds.
    public var span: Double
    /// What a save would hold now, in seconds: less than `span` early in the run.
    public var seconds: Double
    /// Bytes of packets held in memory, and spilled to a temporary file.
    public var memoryBytes: Int
    public var spilledBytes: Int
    /// Saves written so far.
    public var saves: Int

    public init(span: Double, seconds: Double, memoryBytes: Int, spilledBytes: Int, saves: Int) {
        self.span = span
        self.seconds = seconds
        self.memoryBytes = memoryBytes
        self.spilledBytes = spilledBytes
        self.saves = saves
    }
}
