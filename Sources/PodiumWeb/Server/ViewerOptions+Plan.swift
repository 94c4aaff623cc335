import Foundation
public import PodiumCore

/// The browser viewer is an output of its own: its server offers its renditions (H.264, with the
/// codec's parameters out of band for the browser's decoder) to the pages that open it. A still
/// screen sends its pages nothing: each holds its last picture (a page that places pictures beside
/// the sound is told it lasts until the next, `ViewerFeed.heldFrameDuration`), and one that joins
/// asks for a keyframe, grabbed for it at once.
extension ViewerOptions: ServedOutputPlan {
    public var needs: OutputNeeds { OutputNeeds(globalHeader: true, idleFPS: 0) }
    public var isLocal: Bool { false }
    public var host: String? { address }
    public var isPrivate: Bool { secure || isLoopback }

    public func validate(codec: VideoCodec) throws(PodiumError) {
        guard codec == .h264 else {
            throw .usage("the browser viewer plays H.264", about: .output("\(self)"), remedy: .videoCodec(.h264))
        }
    }

    /// Its pages play AAC and Opus alike.
    public func validate(sound codec: AudioCodec) throws(PodiumError) {}

    public func check(overwrite: Bool) throws(PodiumError) {
        for (key, path) in [("cert", certificate), ("key", privateKey)] {
            if let path, !FileManager.default.isReadableFile(atPath: path) {
                throw .usage("cannot read ?\(key)=\(path)", about: .output("\(self)"))
            }
        }
    }

    public func makeServer(_ context: ServerContext) throws(PodiumError) -> any OutputServer {
        try ViewerServer(options: self, board: context.board, clock: context.clock, logger: context.logger)
    }

    /// Reads `http://HOST:PORT` and `https://HOST:PORT`, with the viewer's options.
    public struct Resolver: OutputResolver {
        public init() {}

        public var forms: [String] { ["http(s):// for the browser viewer"] }

        public func resolve(_ text: String) throws(OptionParseError) -> (any OutputPlan)? {
            let lowered = text.lowercased()
            let secure = lowered.hasPrefix("https://")
            guard secure || lowered.hasPrefix("http://") else { return nil }
            return try ViewerOptions(parsing: text.dropFirst(secure ? "https://".count : "http://".count),
                                     secure: secure)
        }
    }
}
