/// The codecs `--codec` offers.
public enum VideoCodec: String, CaseIterable, Hashable, Sendable, Codable {
    case h264, hevc, vp9, av1, mjpeg

    /// As people write it: `H.264`, `HEVC`, `VP9`, `AV1`, `MJPEG`.
    public var displayName: String { self == .h264 ? "H.264" : rawValue.uppercased() }
}

/// The filter `--scale-filter` picks for resizing.
public enum ScaleFilter: String, CaseIterable, Hashable, Sendable, Codable {
    /// Averages the pixels each output pixel covers when shrinking, bilinear when growing: sharp
    /// and the cheapest good filter (libyuv for the window, libswscale's area filter for video).
    case box
    case fast, bilinear, bicubic, lanczos
}
