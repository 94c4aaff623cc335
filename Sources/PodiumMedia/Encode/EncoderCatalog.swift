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
        /// A hardware encoder's interface (`vaapi`, `nvenc`) and the device it was asked on.
        public var api: String?
        public var device: String?
        /// Why a hardware encoder cannot be used here (`no driver`, `decode only` …); `nil` when it can.
        public var reason: String?
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
            if av_codec_is_encoder(candidate) != 0, candidate.pointee.type == AVMEDIA_TYPE_VIDEO,
               candidate.pointee.id == codec.codecID, !probedHardware.contains(candidate.name) {
                found.append(candidate)
            }
        }
        let order = preferred[codec] ?? []
        return found.sorted { (order.firstIndex(of: $0.name) ?? .max) < (order.firstIndex(of: $1.name) ?? .max) }
    }

    /// The hardware encoders Podium asks the device or library about rather than opening them
    /// blind: VAAPI's, and NVENC's (listed with their reasons; used only by name).
    static let probedHardware = Set(VAAPIProbe.encoderNames.values).union(NVENCProbe.encoderNames.values)

    /// The software encoders that open here, tried with a small picture, and each hardware
    /// encoder with why it cannot be used, if it cannot. The default of each codec comes first:
    /// the GPU's when it can be used (`--encoder auto`), else the first software one.
    /// - Parameter vaapiDevice: the render node or X display to ask.
    public static func available(vaapiDevice: String) -> [Entry] {
        quietSVT()
        let vaapi = VAAPIProbe.reasons(device: vaapiDevice, codecs: Array(VAAPIProbe.encoderNames.keys))
        let nvenc = NVENCProbe.reasons(codecs: Array(NVENCProbe.encoderNames.keys))
        return VideoCodec.allCases.flatMap { codec in
            var entries: [Entry] = []
            if let name = VAAPIProbe.encoderNames[codec], let reason = vaapi[codec] {
                entries.append(hardwareEntry(codec: codec, name: name, api: "vaapi", device: vaapiDevice,
                                             reason: reason))
            }
            entries += candidates(for: codec).filter { VideoEncoder.opens($0, codec: codec) }.map { encoder in
                Entry(
                    codec: codec, name: encoder.name, description: String(cString: encoder.pointee.long_name),
                    isDefault: false, isHardware: encoder.pointee.capabilities & AV_CODEC_CAP_HARDWARE != 0,
                    options: VideoEncoder.liveOptions(for: encoder.name).flatMap { ["-\($0.0)", $0.1] }
                )
            }
            if let name = NVENCProbe.encoderNames[codec], let reason = nvenc[codec] {
                entries.append(hardwareEntry(codec: codec, name: name, api: "nvenc", device: nil, reason: reason))
            }
            if let first = entries.indices.first(where: { entries[$0].reason == nil && entries[$0].api != "nvenc" }) {
                entries[first].isDefault = true
            }
            return entries
        }
    }

    private static func hardwareEntry(codec: VideoCodec, name: String, api: String, device: String?,
                                      reason: String?) -> Entry {
        let description = avcodec_find_encoder_by_name(name).map { String(cString: $0.pointee.long_name) }
        return Entry(codec: codec, name: name, description: description ?? name, isDefault: false,
                     isHardware: true, options: VideoEncoder.liveOptions(for: name).flatMap { ["-\($0.0)", $0.1] },
                     api: api, device: device, reason: reason)
    }

    /// The encoder a run opens, and the GPU's device when it is VAAPI's.
    struct Pick {
        var encoder: UnsafePointer<AVCodec>
        /// The device a VAAPI encoder opens on; `nil` for any other.
        var vaapiDevice: String?
        /// Why the GPU's encoder was wanted and not taken, as the user should hear it: `nil` when
        /// it was taken, or not wanted, or `auto` found none (said by `podium encoders`).
        var declined: String?
    }

    /// The encoder `settings` choose: the GPU's when it can be used and is wanted, the one named,
    /// or the codec's first software one that opens here.
    ///
    /// - Throws: 64 for a name libavcodec does not know or that encodes another codec;
    ///   69 when none of the codec's encoders is here.
    static func pick(for settings: EncoderSettings) throws(PodiumError) -> Pick {
        let vaapiName = VAAPIProbe.encoderNames[settings.codec]
        var declined: String?
        switch settings.encoder {
        case .named(let name) where name != vaapiName:
            try validate(name: name, codec: settings.codec)
            guard let encoder = avcodec_find_encoder_by_name(name) else {
                throw .unavailable("no encoder \(name) here")
            }
            return Pick(encoder: encoder)
        case .software:
            break
        case .auto where settings.preset != nil:
            // A speed preset is a software encoder's.
            break
        case .auto, .hardware, .named:
            let device = settings.vaapiDevice ?? VAAPIProbe.defaultDevice(display: getenv("DISPLAY").map {
                String(cString: $0)
            })
            let reason = VAAPIProbe.cachedReason(device: device, codec: settings.codec)
            if reason == nil, let vaapiName, let encoder = avcodec_find_encoder_by_name(vaapiName) {
                return Pick(encoder: encoder, vaapiDevice: device)
            }
            if settings.encoder != .auto {
                declined = vaapiName.map { "\($0) on \(device): \(reason ?? "not in this FFmpeg")" }
                    ?? "VAAPI encodes no \(settings.codec)"
            }
        }
        return Pick(encoder: try software(for: settings.codec), declined: declined)
    }

    /// The codec's first software encoder that opens here.
    /// - Throws: 69 when none does.
    static func software(for codec: VideoCodec) throws(PodiumError) -> UnsafePointer<AVCodec> {
        quietSVT()
        let software = candidates(for: codec).filter { $0.pointee.capabilities & AV_CODEC_CAP_HARDWARE == 0 }
        guard let encoder = software.first(where: { VideoEncoder.opens($0, codec: codec) }) else {
            throw .unavailable("no \(codec) encoder opens on this machine; see podium encoders")
        }
        return encoder
    }

    /// The presets of encoders whose libraries print their own errors for an unknown one.
    static let knownPresets: [String: [String]] = [
        "libx264": ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium",
                    "slow", "slower", "veryslow", "placebo"],
        "libx265": ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium",
                    "slow", "slower", "veryslow", "placebo"],
    ]

    /// Checks `--preset` for the encoder that will be used, without opening anything.
    /// - Throws: 64 naming the presets there are, when the encoder's list is known.
    public static func validate(preset: String, encoder: EncoderChoice, codec: VideoCodec) throws(PodiumError) {
        let name = encoder.name ?? preferred[codec]?.first ?? ""
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
