import Foundation
public import PodiumCore

/// Each muxer target is an output fed by one encoding: `MuxerOutput` writes it (a listener's
/// clients get one each from `ClientListener`).
extension MuxerTarget: StreamOutputPlan {
    public var needs: OutputNeeds {
        var needs = OutputNeeds(globalHeader: needsGlobalHeader)
        switch self {
        case .hls(_, let options):
            needs.keyframeInterval = options.segment
            needs.idleFPS = options.segmentType == .mpegts ? 2 : 1
        case .file(_, _, let split):
            // A still screen costs a recording nothing: its last picture lasts until the next. One
            // cut into files needs keyframes to cut at.
            needs.idleFPS = split == nil ? 0 : 1
        case .udp, .tcp, .tcpListen, .srt, .rtmp, .rtsp:
            break
        }
        return needs
    }

    public var isLocal: Bool { route(flushInterval: .seconds(1)).isLocal }

    public var files: [String] {
        switch self {
        case .file(let path, _, let split): [split == nil ? path : FileSplit.piece(1, of: path)]
        case .hls(let path, _): [path]
        case .udp, .tcp, .tcpListen, .srt, .rtmp, .rtsp: []
        }
    }

    public func check(overwrite: Bool) throws(PodiumError) {
        switch self {
        case .file(let path, _, let split):
            guard split != nil else { return try OutputCheck.creatable(path, as: .output(path), overwrite: overwrite) }
            // Every file it may write is new: none of an earlier recording's is replaced unasked.
            try OutputCheck.creatable(FileSplit.piece(1, of: path), as: .output("\(self)"), overwrite: overwrite)
            for number in 2...999 where !overwrite && FileStatus(path: FileSplit.piece(number, of: path)) != nil {
                throw .cannotCreate("\(FileSplit.piece(number, of: path)) already exists", about: .output("\(self)"),
                                    remedy: .overwrite)
            }
        case .rtmp(let target):
            if let authorities = target.trustedCertificates, !FileManager.default.isReadableFile(atPath: authorities) {
                throw .usage("cannot read the certificate authorities in '\(authorities)'", about: .output("\(self)"))
            }
        case .hls, .udp, .tcp, .tcpListen, .srt, .rtsp:
            break
        }
    }

    public func makeOutput(_ context: OutputContext) -> any RunOutput {
        if case .tcpListen = self {
            return ClientListener(target: self, program: context.program, counters: context.counters,
                                  capacity: context.capacity, logger: context.logger)
        }
        return MuxerOutput(target: self, program: context.program, flushInterval: context.flushInterval,
                           counters: context.counters, capacity: context.capacity, logger: context.logger)
    }

    /// Reads files (`.mkv`, `.mp4`, `.ts`, `.flv`, `.m3u8`) and `udp://`, `tcp://`, `srt://`,
    /// `rtmp[s]://` and `rtsp://` URLs.
    public struct Resolver: OutputResolver {
        public init() {}

        public var forms: [String] { ["a file", "udp://", "tcp://", "srt://", "rtmp://", "rtmps://", "rtsp://"] }

        public func resolve(_ text: String) throws(OptionParseError) -> (any OutputPlan)? {
            guard let target = try MuxerTarget(parsing: text) else { return nil }
            if case .hls(let master, let options) = target { return HLSLadder(master: master, options: options) }
            return target
        }
    }
}

/// `DIR/NAME.m3u8`: an HLS folder, its master playlist written by Podium (`HLSFolder`), each
/// variant of its ladder a media playlist with its segments, written by libavformat's HLS muxer
/// from an encoding of its own.
public struct HLSLadder: LadderOutputPlan {
    public var master: String
    public var options: HLSOptions

    public init(master: String, options: HLSOptions) {
        self.master = master
        self.options = options
    }

    public var description: String { master + URLText.query(options.describedFields) }
    public var needs: OutputNeeds { variant.needs }
    public var isLocal: Bool { true }
    public var files: [String] { [master] }
    /// What every variant is; its own playlist aside.
    private var variant: MuxerTarget { .hls(path: master, options: options) }

    public func validate(codec: VideoCodec) throws(PodiumError) { try variant.validate(codec: codec) }
    public func validate(sound codec: AudioCodec) throws(PodiumError) { try variant.validate(sound: codec) }

    public func check(overwrite: Bool) throws(PodiumError) {
        try HLSFolder.check(master: master, overwrite: overwrite)
    }

    public func variant(_ variant: HLSOptions.Variant) -> (output: any StreamOutputPlan, playlist: String) {
        var shared = options
        shared.isVariant = true
        let playlist = "\(master.dropLast(".m3u8".count))_\(variant.name).m3u8"
        return (MuxerTarget.hls(path: playlist, options: shared), playlist)
    }
}
