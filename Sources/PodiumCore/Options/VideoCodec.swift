/// The codecs `--codec` offers.
public enum VideoCodec: String, CaseIterable, Hashable, Sendable, Codable {
    case h264, hevc, vp9, av1, mjpeg
}

/// The libswscale filter `--scale-filter` picks for resizing.
public enum ScaleFilter: String, CaseIterable, Hashable, Sendable, Codable {
    case fast, bilinear, bicubic, lanczos
}
