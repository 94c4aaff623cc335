/// Recordings started, paused and stopped while a run goes on (`podium control record start FILE`):
/// one at a time, of the run's first encoding and its sound, from the next keyframe.
public protocol RecordingControl: Sendable {
    /// Starts recording to `path` (a file that does not exist yet).
    /// - Throws: a usage error for a path that cannot be recorded to, or while recording already;
    ///   what opening it said.
    func start(_ path: String) throws(PodiumError)
    /// Stops the recording and finalizes it.
    /// - Returns: the file it wrote.
    /// - Throws: a usage error when nothing is being recorded.
    func stop() throws(PodiumError) -> String
    /// Pauses the recording (`paused`), or resumes it from the next keyframe: one file, the
    /// pause cut out of its timeline.
    /// - Returns: the file, and whether that changed anything.
    /// - Throws: a usage error when nothing is being recorded.
    func setPaused(_ paused: Bool) throws(PodiumError) -> (path: String, changed: Bool)
    /// What is being recorded now; `nil` when nothing is.
    var recording: RecordingStatus? { get }
    /// The run ends: a recording still going is finalized.
    func finish() async
}

/// A recording going on, as the stats line and the remote show it.
public struct RecordingStatus: Sendable, Equatable, Codable {
    /// The file.
    public var path: String
    public var isPaused: Bool
    /// The time recorded so far, pauses left out.
    public var seconds: Double

    public init(path: String, isPaused: Bool, seconds: Double) {
        self.path = path
        self.isPaused = isPaused
        self.seconds = seconds
    }

    /// `rec 12:34` or `rec paused 12:34`: for the stats line, without the file.
    public var summary: String {
        let whole = Int(seconds)
        let two = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        let time = whole >= 3600 ? "\(whole / 3600):\(two(whole / 60 % 60)):\(two(whole % 60))"
            : "\(whole / 60):\(two(whole % 60))"
        return "rec \(isPaused ? "paused " : "")\(time)"
    }
}
