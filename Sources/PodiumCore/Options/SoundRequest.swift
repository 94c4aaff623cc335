/// What `--audio` asks for: the sound the machine plays, the default input, or a source by its
/// name on the sound server.
public enum SoundRequest: Hashable, Sendable, CustomStringConvertible {
    /// The monitor of the default output: what the room would hear from the speakers.
    case desktop
    /// The default input, a microphone.
    case microphone
    /// A source by its sound server name (`alsa_input.usb-…`, `room.monitor`).
    case named(String)

    /// `desktop` (or nothing), `mic`, or a source's name.
    public init(parsing text: String) throws(OptionParseError) {
        switch text {
        case "", "desktop": self = .desktop
        case "mic", "microphone": self = .microphone
        default:
            guard !text.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw OptionParseError("expected desktop, mic or a source's name without spaces")
            }
            self = .named(text)
        }
    }

    public var description: String {
        switch self {
        case .desktop: "desktop"
        case .microphone: "mic"
        case .named(let name): name
        }
    }
}

/// The run's sound, as the plan has it: where it comes from and how it is encoded.
public struct SoundPlan: Hashable, Sendable {
    public var source: SoundRequest
    public var codec: AudioCodec
    public var bitrate: Bitrate

    public init(source: SoundRequest, codec: AudioCodec = .aac, bitrate: Bitrate = Bitrate(bitsPerSecond: 128_000)) {
        self.source = source
        self.codec = codec
        self.bitrate = bitrate
    }
}
