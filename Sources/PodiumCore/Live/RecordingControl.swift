/// Recordings started and stopped while a run goes on (`podium control record start FILE`): one
/// at a time, of the run's first encoding and its sound, from the next keyframe.
public protocol RecordingControl: Sendable {
    /// Starts recording to `path` (a file that does not exist yet).
    /// - Throws: a usage error for a path that cannot be recorded to, or while recording already;
    ///   what opening it said.
    func start(_ path: String) throws(PodiumError)
    /// Stops the recording and finalizes it.
    /// - Returns: the file it wrote.
    /// - Throws: a usage error when nothing is being recorded.
    func stop() throws(PodiumError) -> String
    /// The file being recorded to; `nil` when none is.
    var recordingPath: String? { get }
    /// The run ends: a recording still going is finalized.
    func finish() async
}
