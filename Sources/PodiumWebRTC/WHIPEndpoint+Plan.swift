public import PodiumCore

/// A WHIP endpoint is an output of its own: H.264 in the constrained baseline profile from an
/// encoder whose bit rate follows the receiver, and Opus, on one peer connection.
extension WHIPEndpoint: StreamOutputPlan {
    public var needs: OutputNeeds { OutputNeeds(followsReceiver: true, globalHeader: false, soundCodec: .opus) }
    public var isLocal: Bool { false }

    public func validate(codec: VideoCodec) throws(PodiumError) {
        guard codec == .h264 else {
            throw .usage("WHIP carries H.264, which every browser plays", about: .output("\(self)"),
                         remedy: .videoCodec(.h264))
        }
    }

    public func validate(sound codec: AudioCodec) throws(PodiumError) {
        guard codec == .opus else {
            throw .usage("WebRTC carries Opus sound", about: .output("\(self)"), remedy: .audioCodec(.opus))
        }
    }

    public func bitrateCeiling(size: PixelSize, fps: FrameRate) -> Bitrate? {
        NetworkRate.defaultCeiling(size: size, fps: fps)
    }

    public func makeOutput(_ context: OutputContext) -> any RunOutput {
        WHIPOutput(endpoint: self, context: context)
    }

    /// Reads `whip+https://…` and `whip+http://…`.
    public struct Resolver: OutputResolver {
        public init() {}

        public var forms: [String] { ["whip+https://"] }

        public func resolve(_ text: String) throws(OptionParseError) -> (any OutputPlan)? {
            let lowered = text.lowercased()
            if lowered.hasPrefix("whip://") {
                throw OptionParseError("WHIP goes over HTTP: write whip+https://host/path (or whip+http://)")
            }
            guard lowered.hasPrefix("whip+http://") || lowered.hasPrefix("whip+https://") else { return nil }
            return try WHIPEndpoint(parsing: text)
        }
    }
}
