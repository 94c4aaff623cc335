import ArgumentParser
import PodiumCore

/// When to stop, and what to report.
struct RunOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Stop after this long, such as 10s or 2m (default: until Ctrl-C).", valueName: "DURATION"),
            transform: parsed(Duration.init(parsing:)))
    var duration: Duration?

    @Option(help: ArgumentHelp("Stop after encoding N frames (grabbing N when nothing is encoded).", valueName: "N"))
    var frames: Int?

    @Option(name: .customLong("stats-json"), help: ArgumentHelp("Write one JSON object a second, and a final summary, to FILE.", valueName: "FILE"))
    var statsJSON: String?

    @Flag(help: "Print nothing but errors.")
    var quiet = false

    @Flag(help: "Log what Podium and FFmpeg do in detail.")
    var verbose = false

    @Flag(help: "Replace output files that exist.")
    var overwrite = false

    func validate() throws {
        if let frames, frames < 1 { throw ValidationError("--frames '\(frames)' must be at least 1") }
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be combined") }
    }
}

extension RunOptions {
    /// When the pipeline ends by itself.
    var limits: Pipeline.Limits { .init(duration: duration, frames: frames) }
}
