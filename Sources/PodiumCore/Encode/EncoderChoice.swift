/// `--encoder`: which encoder of a codec compresses its pictures.
public enum EncoderChoice: Sendable, Hashable, CustomStringConvertible {
    /// The GPU's (VAAPI) when it offers the codec and opens, else the codec's first software
    /// encoder that opens here. The default.
    case auto
    /// The GPU's (VAAPI): that it is not there is said, and software encodes instead.
    case hardware
    /// The codec's first software encoder that opens here.
    case software
    /// A libavcodec encoder by name (`libx264`, `h264_vaapi`).
    case named(String)

    /// `auto`, `vaapi`, `software`, or an encoder's name.
    public init(parsing text: String) {
        switch text {
        case "auto": self = .auto
        case "vaapi", "hardware": self = .hardware
        case "software": self = .software
        default: self = .named(text)
        }
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case .hardware: "vaapi"
        case .software: "software"
        case .named(let name): name
        }
    }

    /// The encoder's name when one was named.
    public var name: String? {
        if case .named(let name) = self { name } else { nil }
    }
}
