import Foundation

/// What `--audio` asks for: the sound the machine plays, the default input, or a source by its
/// name on the sound server.
public enum SoundRequest: Hashable, Sendable, CustomStringConvertible {
    /// The monitor of the default output: what the room would hear from the speakers.
    case desktop
    /// The default input, a microphone.
    case microphone
    /// A source by its sound server name (`alsa_input.usb-…`, `room.monitor`).
    case named(String)
    /// `app:NAME`: what one application plays (a PipeWire stream by the application's name).
    case application(String)

    /// `desktop` (or nothing), `mic`, or a source's name.
    public init(parsing text: String) throws(OptionParseError) {
        switch text {
        case "", "desktop": self = .desktop
        case "mic", "microphone": self = .microphone
        case let app where app.lowercased().hasPrefix("app:"):
            let name = String(app.dropFirst("app:".count))
            guard !name.isEmpty, !name.contains(where: \.isNewline) else {
                throw OptionParseError("expected app:NAME with an application's name, such as app:firefox")
            }
            self = .application(name)
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
        case .application(let name): "app:\(name)"
        }
    }
}

/// One `--audio`: a source and the level it is mixed at (`mic?gain=-6dB`).
public struct SoundInput: Hashable, Sendable, CustomStringConvertible {
    public var source: SoundRequest
    /// Decibels added to the source's level in the mix; 0 leaves it as it is.
    public var gain: Double

    /// The gains one may ask for: from nearly silent to four times as loud.
    public static let gains = -60.0...12.0

    public init(source: SoundRequest, gain: Double = 0) {
        self.source = source
        self.gain = gain
    }

    /// `SOURCE` or `SOURCE?gain=-6dB` (the `dB` may be left out).
    public init(parsing text: String) throws(OptionParseError) {
        let parts = text.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        source = try SoundRequest(parsing: String(parts[0]))
        gain = 0
        guard parts.count > 1 else { return }
        for setting in parts[1].split(separator: "&") {
            let pair = setting.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0] == "gain" else {
                throw OptionParseError("expected ?gain=DB after the source, such as mic?gain=-6dB")
            }
            var number = pair[1].lowercased()
            if number.hasSuffix("db") { number.removeLast(2) }
            guard let decibels = Double(number), decibels.isFinite else {
                throw OptionParseError("the gain '\(pair[1])' is not a number of decibels, such as -6dB")
            }
            guard Self.gains.contains(decibels) else {
                throw OptionParseError("the gain must be from \(Int(Self.gains.lowerBound))dB to "
                                       + "+\(Int(Self.gains.upperBound))dB")
            }
            gain = decibels
        }
    }

    /// The factor samples are multiplied by.
    public var factor: Float { Float(pow(10, gain / 20)) }

    public var description: String {
        gain == 0 ? source.description : "\(source)?gain=\(gain.plain)dB"
    }
}

/// The run's sound, as the plan has it: where it comes from (one source, or several mixed) and
/// how it is encoded.
public struct SoundPlan: Hashable, Sendable {
    public var inputs: [SoundInput]
    public var codec: AudioCodec
    public var bitrate: Bitrate
    /// The sound server the inputs are read from.
    public var servers = SoundServers()

    /// The most sources a run mixes.
    public static let maxInputs = 4

    public init(inputs: [SoundInput], codec: AudioCodec = .aac, bitrate: Bitrate = Bitrate(bitsPerSecond: 128_000)) {
        self.inputs = inputs
        self.codec = codec
        self.bitrate = bitrate
    }
}

/// Which sound server a program reads, as its environment says: PipeWire straight, unless
/// `PULSE_SERVER` names a PulseAudio server (PulseAudio alone, or another machine's).
public struct SoundServers: Hashable, Sendable {
    /// The PulseAudio server `PULSE_SERVER` names (`unix:/path/native`, `tcp:host`).
    public var pulse: String?
    /// PipeWire's socket, by path: `PIPEWIRE_REMOTE` in `PIPEWIRE_RUNTIME_DIR` or
    /// `XDG_RUNTIME_DIR`; `nil` for libpipewire's own choice.
    public var pipeWire: String?

    /// Libpulse's and libpipewire's own choices.
    public init() {}

    public init(environment: [String: String]) {
        let named = { (key: String) in environment[key].flatMap { $0.isEmpty ? nil : $0 } }
        pulse = named("PULSE_SERVER")
        let remote = named("PIPEWIRE_REMOTE") ?? "pipewire-0"
        let folder = named("PIPEWIRE_RUNTIME_DIR") ?? named("XDG_RUNTIME_DIR")
        pipeWire = remote.hasPrefix("/") ? remote : folder.map { "\($0)/\(remote)" }
    }
}
