/// A failure the user can act on, with the process exit code it maps to (sysexits).
///
/// Every message is one line; the CLI prefixes it with `podium: `.
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

    public var exitCode: ExitCode
    public var message: String

    public init(_ exitCode: ExitCode, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    public var description: String { message }

    public static func usage(_ message: String) -> PodiumError { PodiumError(.usage, message) }
    public static func unavailable(_ message: String) -> PodiumError { PodiumError(.unavailable, message) }
    public static func cannotCreate(_ message: String) -> PodiumError { PodiumError(.cannotCreate, message) }
    public static func io(_ message: String) -> PodiumError { PodiumError(.io, message) }
    public static func software(_ message: String) -> PodiumError { PodiumError(.software, message) }
    public static func refused(_ message: String) -> PodiumError { PodiumError(.refused, message) }
}
