import Glibc
public import PodiumCore

/// `--replay 2m`: the last minutes of the run kept, for `save` to write to a file while the run
/// goes on (`ReplayKeeper`). Fed by the run's encoding like a recording, and saved as one.
public struct ReplayPlan: StreamOutputPlan {
    /// How much a save holds at most.
    public var span: Duration
    /// Bytes of packets held in memory; older ones are spilled to a temporary file.
    public var memoryLimit: Int
    /// Where that file goes: the program's `$TMPDIR`, else `/var/tmp` (a disk, where `/tmp` is
    /// often memory).
    public var spillFolder: String

    public init(span: Duration, memoryLimit: Int, spillFolder: String? = nil) {
        self.span = span
        self.memoryLimit = memoryLimit
        self.spillFolder = spillFolder ?? "/var/tmp"
    }

    /// The longest replay kept.
    public static let longest = Duration.seconds(2 * 3600)
    /// The memory it holds unless `--replay-memory` says otherwise.
    public static let defaultMemory = ByteSize(bytes: 64 << 20)

    public var description: String {
        let seconds = Int(span.seconds.rounded())
        let length = seconds % 60 == 0 ? "\(seconds / 60)m" : "\(seconds)s"
        return "replay (last \(length))"
    }

    /// Parameter sets as extradata: a save is a Matroska or MP4 file.
    public var needs: OutputNeeds { OutputNeeds(globalHeader: true) }
    public var isLocal: Bool { true }

    /// What a save writes: a Matroska file.
    private var saved: MuxerTarget { .file(path: description, container: .matroska, split: nil) }

    public func validate(codec: VideoCodec) throws(PodiumError) { try saved.validate(codec: codec) }
    public func validate(sound codec: AudioCodec) throws(PodiumError) { try saved.validate(sound: codec) }

    public func check(overwrite: Bool) throws(PodiumError) {
        guard FileStatus(path: spillFolder)?.kind == .folder, access(spillFolder, W_OK | X_OK) == 0 else {
            throw .cannotCreate("its temporary folder '\(spillFolder)' is not a writable folder (set TMPDIR)",
                                about: .output(description))
        }
    }

    public func makeOutput(_ context: OutputContext) -> any RunOutput {
        ReplayKeeper(plan: self, context: context)
    }
}
