import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif
public import PodiumCore

/// The libavcodec encoders Podium can drive, and which of them open on this machine.
public enum EncoderCatalog {
    /// One encoder of a codec.
    public struct Entry: Sendable, Codable, Equatable {
        public var codec: VideoCodec
        public var name: String
        public var description: String
        public var isDefault: Bool
        public var isHardware: Bool
        /// How Podium opens it for live capture, as `ffmpeg` arguments (`-preset`, `ultrafast`, …).
        public var options: [String]
    }

    /// Encoders tried first for each codec, in order: the fast software ones that suit live capture.
    static let preferred: [VideoCodec: [String]] = [
        .h264: ["libx264"], .hevc: ["libx265"], .vp9: ["libvpx-vp9"],
        .av1: ["libsvtav1", "libaom-av1", "librav1e"], .mjpeg: ["mjpeg"],
    ]

    /// Every encoder libavcodec knows for `codec`, preferred ones first.
    static func candidates(for codec: VideoCodec) -> [UnsafePointer<AVCodec>] {
        var found: [UnsafePointer<AVCodec>] = []
        var state: UnsafeMutableRawPointer?
        while let candidate = av_codec_iterate(&state) {
            if av_codec_is_encoder(candidate) != 0, candidate.pointee.type == AVMEDIA_TYPE_VIDEO, candidate.pointee.id == codec.codecID {
                found.append(candidate)
            }
        }
        let order = preferred[codec] ?? []
        return found.sorted { (order.firstIndex(of: $0.name) ?? .max) < (order.firstIndex(of: $1.name) ?? .max) }
    }

    /// The encoders that open here, tried with a small picture; the first of each codec is its default.
    public static func available() -> [Entry] {
        quietSVT()
        return VideoCodec.allCases.flatMap { codec in
            let working = candidates(for: codec).filter { VideoEncoder.opens($0, codec: codec) }
            return working.enumerated().map { index, encoder in
                Entry(
                    codec: codec, name: encoder.name, description: String(cString: encoder.pointee.long_name),
                    isDefault: index == 0, isHardware: encoder.pointee.capabilities & AV_CODEC_CAP_HARDWARE != 0,
                    options: VideoEncoder.liveOptions(for: encoder.name).flatMap { ["-\($0.0)", $0.1] }
                )
            }
        }
    }

    /// The encoder `settings` names, or the codec's first one that opens here.
    ///
    /// - Throws: 64 for a name libavcodec does not know or that encodes another codec;
    ///   69 when none of the codec's encoders is here.
    static func encoder(for settings: EncoderSettings) throws(PodiumError) -> UnsafePointer<AVCodec> {
        if let name = settings.encoderName {
            try validate(name: name, codec: settings.codec)
            guard let encoder = avcodec_find_encoder_by_name(name) else {
                throw .unavailable("no encoder \(name) here")
            }
            return encoder
        }
        quietSVT()
        guard let encoder = candidates(for: settings.codec).first(where: { VideoEncoder.opens($0, codec: settings.codec) }) else {
            throw .unavailable("no \(settings.codec) encoder opens on this machine; see podium encoders")
        }
        return encoder
    }

    /// The presets of encoders whose libraries print their own errors for an unknown one.
    static let knownPresets: [String: [String]] = [
        "libx264": ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"],
        "libx265": ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"],
    ]

    /// Checks `--preset` for the encoder that will be used, without opening anything.
    /// - Throws: 64 naming the presets there are, when the encoder's list is known.
    public static func validate(preset: String, encoderName: String?, codec: VideoCodec) throws(PodiumError) {
        let name = encoderName ?? preferred[codec]?.first ?? ""
        guard let presets = knownPresets[name], !presets.contains(preset) else { return }
        throw .usage("not a preset of \(name); use one of " + presets.joined(separator: ", "), about: .preset(preset))
    }

    /// Checks `--encoder` without opening anything.
    /// - Throws: 64 when libavcodec has no such video encoder for `codec`.
    public static func validate(name: String, codec: VideoCodec) throws(PodiumError) {
        guard let encoder = avcodec_find_encoder_by_name(name), encoder.pointee.type == AVMEDIA_TYPE_VIDEO else {
            throw .usage("no such video encoder", about: .encoder(name), remedy: .listEncoders)
        }
        guard encoder.pointee.id == codec.codecID else {
            let other = String(cString: avcodec_get_name(encoder.pointee.id))
            let matching = VideoCodec.allCases.first { $0.codecID == encoder.pointee.id }
            throw .usage("encodes \(other), not \(codec)", about: .encoder(name),
                         remedy: matching.map { .videoCodec($0) })
        }
    }
}

/// SVT-AV1 prints a banner to stdout at every open unless `SVT_LOG` asks for errors only.
private func quietSVT() {
    setenv("SVT_LOG", "1", 0)
}

extension UnsafePointer<AVCodec> {
    var name: String { String(cString: pointee.name) }
}

extension VideoCodec {
    var codecID: AVCodecID {
        switch self {
        case .h264: AV_CODEC_ID_H264
        case .hevc: AV_CODEC_ID_HEVC
        case .vp9: AV_CODEC_ID_VP9
        case .av1: AV_CODEC_ID_AV1
        case .mjpeg: AV_CODEC_ID_MJPEG
        }
    }
}

extension AudioCodec {
    var codecID: AVCodecID {
        switch self {
        case .aac: AV_CODEC_ID_AAC
        case .opus: AV_CODEC_ID_OPUS
        }
    }
}
