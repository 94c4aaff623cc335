/// A failure the user can act on, with the process exit code it maps to (sysexits).
///
/// Libraries say what went wrong and about what, as data; only the executable knows the flags
/// the user typed, so it words `subject` and `remedy` into the one line it prints (`podium: `
/// first). `description` is the same line without flags, for logs.
public struct PodiumError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The sysexits code the process ends with.
    public struct ExitCode: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// A flag value that cannot be honoured (EX_USAGE).
        public static let usage = ExitCode(rawValue: 64)
        /// The X display, a monitor or an encoder is not there (EX_UNAVAILABLE).
        public static let unavailable = ExitCode(rawValue: 69)
        /// A bug (EX_SOFTWARE).
        public static let software = ExitCode(rawValue: 70)
        /// An output cannot be created (EX_CANTCREAT).
        public static let cannotCreate = ExitCode(rawValue: 73)
        /// Writing or sending failed for good (EX_IOERR).
        public static let io = ExitCode(rawValue: 74)
        /// A server refused what Podium asked: a stream key, a passphrase, a path to publish; or
        /// the user declined to share the screen in the desktop's dialog (EX_NOPERM).
        public static let refused = ExitCode(rawValue: 77)
    }

    /// The one thing the user asked for that the error is about, with its value as given.
    public enum Subject: Hashable, Sendable, CustomStringConvertible {
        /// An output as the user described it, secrets already masked.
        case output(String)
        /// The outputs together (two that clash).
        case outputs
        /// The file the run's statistics go to.
        case statsFile(String)
        /// The chart `podium bench` draws.
        case plot(String)
        /// A recording started while the run goes (`record start FILE`).
        case recording(String)
        /// The file a replay is saved to (`save FILE`).
        case savedReplay(String)
        case preset(String)
        case encoder(String)
        case size(PixelSize)
        /// A constant quality (crf).
        case quality(Double)
        case videoCodec(VideoCodec)
        /// A sound source asked for, as asked.
        case sound(String)
        case window(WindowSelector)
        case monitor(String)
        case region(PixelRect)
        /// The rungs `podium bench` encodes.
        case ladder
        /// The viewers' pointer and keys played on a monitor made for the run.
        case viewerInput
        /// The scale asked for a monitor made for the run.
        case monitorScale(Double)
        /// The monitor a new one is to lie beside, and on which side.
        case neighbour(ExtendRequest.Side, String)

        /// Without flags, for logs; `record start` is the control socket's own word, not a flag.
        public var description: String {
            switch self {
            case .output(let value), .statsFile(let value), .plot(let value): "'\(value)'"
            case .recording(let path): "record start '\(path)'"
            case .savedReplay(let path): "save '\(path)'"
            case .preset(let preset): "preset '\(preset)'"
            case .encoder(let name): "encoder '\(name)'"
            case .size(let size): "size \(size)"
            case .quality(let quality): "quality \(quality.plain)"
            case .videoCodec(let codec): "\(codec)"
            case .sound(let request): "sound \(request)"
            case .window(let selector): "window '\(selector)'"
            case .monitor(let monitor): "monitor '\(monitor)'"
            case .region(let region): "region '\(region)'"
            case .outputs: "outputs"
            case .ladder: "ladder"
            case .viewerInput: "the viewers' input"
            case .monitorScale(let scale): "monitor scale \(scale)"
            case .neighbour(.rightOf, let name): "right of '\(name)'"
            case .neighbour(.leftOf, let name): "left of '\(name)'"
            case .neighbour(let side, let name): "\(side.rawValue) '\(name)'"
            }
        }
    }

    /// What the user can do about it with the command's own options.
    public enum Remedy: Hashable, Sendable {
        /// Replace the file that is there.
        case overwrite
        case videoCodec(VideoCodec)
        case audioCodec(AudioCodec)
        /// Ask for a bit rate rather than a constant quality.
        case bitrate
        /// Encode at another size.
        case otherSize
        /// Capture through the desktop's portal rather than the compositor's screencopy.
        case portal
        /// Name an X display, or capture a Wayland desktop.
        case display
        /// Capture a region of the screen rather than a window.
        case region
        /// See which encoders there are.
        case listEncoders
        /// Put a monitor right of or below another (an X screen grows that way only).
        case growRightOrDown
        /// Run against the Wayland display, not its XWayland.
        case waylandDisplay
    }

    public var exitCode: ExitCode
    /// What went wrong, in words that name no flag; the subject, when there is one, is said before it.
    public var message: String
    public var subject: Subject?
    public var remedy: Remedy?

    public init(_ exitCode: ExitCode, _ message: String, about subject: Subject? = nil, remedy: Remedy? = nil) {
        self.exitCode = exitCode
        self.message = message
        self.subject = subject
        self.remedy = remedy
    }

    public var description: String { subject.map { "\($0): \(message)" } ?? message }

    public static func usage(_ message: String, about subject: Subject? = nil, remedy: Remedy? = nil)
        -> PodiumError { PodiumError(.usage, message, about: subject, remedy: remedy) }
    public static func unavailable(_ message: String, about subject: Subject? = nil, remedy: Remedy? = nil)
        -> PodiumError { PodiumError(.unavailable, message, about: subject, remedy: remedy) }
    public static func cannotCreate(_ message: String, about subject: Subject? = nil, remedy: Remedy? = nil)
        -> PodiumError { PodiumError(.cannotCreate, message, about: subject, remedy: remedy) }
    public static func io(_ message: String) -> PodiumError { PodiumError(.io, message) }
    public static func software(_ message: String) -> PodiumError { PodiumError(.software, message) }
    public static func refused(_ message: String) -> PodiumError { PodiumError(.refused, message) }
}
