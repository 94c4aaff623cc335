import ArgumentParser
import Logging
import PodiumCore

/// When to stop, and what to report.
struct RunOptions: ParsableArguments {
    @Option(name: [.customLong("duration"), .customShort("t")],
            help: ArgumentHelp("Stop after this long, such as 10s, 2m or 01:30:00 (default: until Ctrl-C).",
                               valueName: "DURATION"),
            transform: parsed(Duration.init(parsing:)))
    var duration: Duration?

    @Option(help: ArgumentHelp("Stop after encoding N frames (grabbing N when nothing is encoded; default: no limit).",
                               valueName: "N"))
    var frames: Int?

    @Option(name: .customLong("stats-json"),
            help: ArgumentHelp("Write one JSON object a second, and a final summary, to FILE.", valueName: "FILE"))
    var statsJSON: String?

    @Option(name: .customLong("log-level"),
            help: ArgumentHelp("How much Podium and FFmpeg say: quiet, error, warning, info or debug (default: info).",
                               valueName: "LEVEL"))
    var logLevel: LogLevel?

    @Flag(help: "Print nothing but errors, and no statistics line (as --log-level error).")
    var quiet = false

    @Flag(help: "Log what Podium and FFmpeg do in detail (as --log-level debug).")
    var verbose = false

    @Flag(help: "Replace output files that exist.")
    var overwrite = false

    @Flag(inversion: .prefixedNo,
          help: ArgumentHelp("Take changes from `podium control` on a socket of this user's (default: on when the "
                             + "run sends to the network, serves viewers or shows a window)."))
    var control: Bool?

    func validate() throws {
        if let frames, frames < 1 { throw ValidationError("--frames '\(frames)' must be at least 1") }
        if [quiet, verbose, logLevel != nil].count(where: { $0 }) > 1 {
            throw ValidationError("--quiet, --verbose and --log-level cannot be combined: they say the same thing")
        }
    }
}

/// How much is said on stderr, FFmpeg's own messages included.
enum LogLevel: String, CaseIterable, Comparable, ExpressibleByArgument {
    case quiet, error, warning, info, debug

    static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }

    /// Podium's own messages at and above this level are shown (its usual ones are notices).
    var podium: Logger.Level {
        switch self {
        case .quiet: .critical
        case .error: .error
        case .warning: .warning
        case .info: .notice
        case .debug: .debug
        }
    }

    /// FFmpeg's: at `info` only its errors, as its informational lines are for developers.
    var ffmpeg: Logger.Level {
        switch self {
        case .quiet: .critical
        case .error, .info: .error
        case .warning: .warning
        case .debug: .info
        }
    }
}

extension RunOptions {
    /// The level asked for, by `--log-level`, `--quiet` or `--verbose`.
    var level: LogLevel { logLevel ?? (quiet ? .error : verbose ? .debug : .info) }

    /// Whether the statistics line, the summary and the viewer links are printed.
    var showsProgress: Bool { level > .error }

    /// When the run ends by itself.
    var limits: Run.Limits { .init(duration: duration, frames: frames) }
}
