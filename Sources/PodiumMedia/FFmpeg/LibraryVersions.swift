import CFFmpeg
import CYUV
import PodiumCore

/// The versions of the media libraries Podium runs with, for `podium --version`.
public enum LibraryVersions {
    /// `libavcodec 59.37.100`, … as loaded now (not as built against), then FFmpeg's release and libyuv.
    public static var media: [String] {
        func version(_ packed: UInt32) -> String { "\(packed >> 16).\(packed >> 8 & 0xFF).\(packed & 0xFF)" }
        let ffmpeg = [("libavcodec", avcodec_version()), ("libavformat", avformat_version()),
                      ("libswscale", swscale_version())].map { "\($0.0) \(version($0.1))" }
        // libyuv has no function that reports its version: the one built against, and the file loaded.
        let yuv = "libyuv \(LIBYUV_VERSION)" + (SharedLibrary.file(named: "libyuv.so").map { " (\($0))" } ?? "")
        return ffmpeg + ["FFmpeg \(String(cString: av_version_info()))", yuv]
    }
}
