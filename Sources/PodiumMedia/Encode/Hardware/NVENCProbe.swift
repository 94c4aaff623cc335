import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif
import PodiumCore

/// Whether NVIDIA's encoder could run here, from the libraries FFmpeg loads for it. Podium lists
/// it with its reason and uses it only by name: it has not been tried on an NVIDIA GPU.
enum NVENCProbe {
    /// The FFmpeg encoder of each codec on NVENC.
    static let encoderNames: [VideoCodec: String] = [.h264: "h264_nvenc", .hevc: "hevc_nvenc", .av1: "av1_nvenc"]

    /// Whether each of `codecs` encodes on NVENC: `nil`, or why not (`no libcuda`, …).
    static func reasons(codecs: [VideoCodec]) -> [VideoCodec: String?] {
        var reasons: [VideoCodec: String?] = [:]
        let libraries = missingLibrary()
        for codec in codecs {
            guard let name = encoderNames[codec], let encoder = avcodec_find_encoder_by_name(name) else {
                reasons[codec] = "not in this FFmpeg"
                continue
            }
            if let libraries {
                reasons[codec] = libraries
            } else {
                reasons.updateValue(VideoEncoder.opens(encoder, codec: codec) ? nil : "does not open", forKey: codec)
            }
        }
        return reasons
    }

    /// The driver's libraries FFmpeg loads for NVENC, or which is missing.
    private static func missingLibrary() -> String? {
        for (file, reason) in [("libcuda.so.1", "no libcuda"), ("libnvidia-encode.so.1", "no NVENC library")] {
            guard let handle = dlopen(file, RTLD_LAZY | RTLD_LOCAL) else { return reason }
            dlclose(handle)
        }
        return nil
    }
}
