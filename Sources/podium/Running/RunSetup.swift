import Foundation
import Logging
import PodiumCore
import PodiumMedia
import PodiumWeb
import PodiumX11
import PodiumRun
import ServiceLifecycle
import Synchronization

/// The steps `stream`, `mirror` and `bench` share: checks before anything is opened, a look at
/// the display to capture, and the run of a plan with signals and statistics.
enum RunSetup {
    /// Everything about the outputs (`--to`, `--stats-json`) that can be checked without touching
    /// the outside world, so a bad one is refused before anything is opened. Looking up a host and
    /// a file's folder may block: on a thread of its own.
    static func check(_ outputs: [OutputRequest], viewers: [ViewerRequest], encode: EncodingDefaults,
                      sound: SoundPlan? = nil, run: RunOptions) async throws(PodiumError) {
        try await onOwnThread("podium-checks") { () throws(PodiumError) in
            try validateOutputs(outputs, viewers: viewers, encode: encode, sound: sound, run: run)
        }
    }

    private static func validateOutputs(_ outputs: [OutputRequest], viewers: [ViewerRequest] = [],
                                        encode: EncodingDefaults, sound: SoundPlan?, run: RunOptions)
        throws(PodiumError) {
        let urls = outputs.map(\.url)
        let files = urls.compactMap(\.filePath).map { (flag: "--to", path: $0) }
        let playlists = urls.compactMap { url -> String? in
            if case .hls(let path, _) = url { return path }
            return nil
        }
        let written = files + playlists.map { (flag: "--to", path: $0) }
            + (run.statsJSON.map { [(flag: "--stats-json", path: $0)] } ?? [])
        if Set(urls).count != urls.count { throw .usage("--to names the same output twice") }
        for output in outputs {
            let codec = output.codec(encode)
            try output.url.validate(codec: codec)
            if let sound { try output.url.validate(sound: sound.codec) }
            // As the plan will choose it.
            let encoder = encode.encoderName(for: codec)
            if let encoder { try EncoderCatalog.validate(name: encoder, codec: codec) }
            if let preset = output.rendition.preset ?? encode.preset {
                try EncoderCatalog.validate(preset: preset, encoderName: encoder, codec: codec)
            }
        }
        try validateViewers(viewers, encode: encode)
        try OutputCheck.distinct(written)
        for url in urls { try NetworkAddress.resolve(url) }
        for case .rtmp(let target) in urls {
            if let authorities = target.trustedCertificates, !FileManager.default.isReadableFile(atPath: authorities) {
                throw .usage("--to '\(target)': cannot read the certificate authorities in '\(authorities)'")
            }
        }
        for path in urls.compactMap(\.filePath) {
            try OutputCheck.creatable(path, as: .output(path), overwrite: run.overwrite)
        }
        if let stats = run.statsJSON {
            try OutputCheck.creatable(stats, as: .statsFile(stats), overwrite: run.overwrite)
        }
        for playlist in playlists { try HLSFolder.check(master: playlist, overwrite: run.overwrite) }
    }

    /// The browser viewers: H.264, one server a port, files that can be read.
    private static func validateViewers(_ viewers: [ViewerRequest], encode: EncodingDefaults) throws(PodiumError) {
        var ports: Set<Int> = []
        for viewer in viewers {
            let named = "--to '\(viewer.options)'"
            guard (viewer.rendition.codec ?? encode.codec) == .h264 else {
                throw .usage("\(named): the browser viewer plays H.264; add ?codec=h264 or pass --codec h264")
            }
            guard ports.insert(viewer.options.port).inserted else {
                throw .usage("\(named): another viewer listens on port \(viewer.options.port) already")
            }
            if let preset = viewer.rendition.preset ?? encode.preset {
                try EncoderCatalog.validate(preset: preset, encoderName: encode.encoder, codec: .h264)
            }
            for (key, path) in [("cert", viewer.options.certificate), ("key", viewer.options.privateKey)] {
                if let path, !FileManager.default.isReadableFile(atPath: path) {
                    throw .usage("\(named): cannot read ?\(key)=\(path)")
                }
            }
            try NetworkAddress.resolve(host: viewer.options.host, of: viewer.options.description)
        }
    }

    /// What to capture, looked up by the source kinds' resolvers (each on a thread of its own: a
    /// connect may block), and what the lookup says on the way.
    /// - Throws: 69 when the display cannot be opened, the monitor or window is not there or its
    ///   pixels cannot be read; 64 for a region outside the screen, or a name several windows match.
    /// - Parameters:
    ///   - outputs: where the pictures go, which may ask for an unchanged screen more often.
    ///   - filter: how two sources are scaled to their places.
    static func capturePlan(_ source: CaptureSource, outputs: [SinkURL] = [], filter: ScaleFilter = .box)
        async throws(PodiumError) -> CapturePlan {
        var lookup = SourceLookup(display: source.display)
        (lookup.monitor, lookup.region, lookup.drawsCursor) = (source.monitor, source.region, source.cursor)
        (lookup.sharedMemory, lookup.tracksDamage) = (!source.noSharedMemory, !source.constantFPS)
        (lookup.exitWhenGone, lookup.forgetsChoice) = (source.exitWhenGone, source.forgetChoice)
        (lookup.masks, lookup.showsRegion) = (source.presenter.masks, source.presenter.showsRegion)
        lookup.events = { Console.say($0.said) }
        lookup.stopRequested = { SignalTrap.stopRequested }
        var plan = try await SourceCatalog.capturePlan(source.allSources, lookup: lookup, layout: source.layout.chosen,
                                                       filter: filter, idleFPS: source.idleRate(for: outputs))
        (plan.highlight, plan.zoom) = (source.presenter.highlight, source.presenter.zoom)
        return plan
    }

    /// What is captured and where it goes, said as capture starts: one line, or with several
    /// encoders a line for each.
    static func startLines(_ parts: [String], encoders: [String]) -> [String] {
        guard encoders.count > 1 else { return [(parts + encoders).joined(separator: "; ")] }
        return [(parts + ["\(encoders.count) encoders:"]).joined(separator: "; ")] + encoders.map { "  " + $0 }
    }

    /// The sound sources as the start message says them: those of one server together,
    /// `sound from A and B on S` for `sound from A on S` and `sound from B on S`.
    static func soundParts(_ sounds: [String]) -> [String] {
        let prefix = "sound from "
        let split = sounds.map { sound -> (source: String, server: String)? in
            guard sound.hasPrefix(prefix), let on = sound.range(of: " on ", options: .backwards) else { return nil }
            return (String(sound[sound.index(sound.startIndex, offsetBy: prefix.count)..<on.lowerBound]),
                    String(sound[on.upperBound...]))
        }
        let parts = split.compactMap { $0 }
        guard sounds.count > 1, parts.count == sounds.count, Set(parts.map(\.server)).count == 1 else {
            return sounds
        }
        let sources = parts.map(\.source)
        return [prefix + sources.dropLast().joined(separator: ", ") + " and " + sources[sources.count - 1]
                + " on " + parts[0].server]
    }

    /// Runs `plan` with Ctrl-C handling and statistics, the viewers' servers beside it in one
    /// service group; prints the summary, and throws what ended it.
    /// - Parameter parts: what the run does besides capturing and encoding (`mirroring to :1`),
    ///   said as capture starts.
    static func run(_ plan: RunPlan, parts: [String], options: RunOptions, logger: Logger) async throws {
        for notice in plan.encoding.notices { logger.notice("\(notice)") }
        // Making a viewer's certificate may take a moment: off the cooperative pool.
        let session = try await onOwnThread("podium-build") { () throws(PodiumError) in
            try RunBuilder.build(plan, logger: logger)
        }
        let job = Job { try await execute(session, parts: parts, options: options, logger: logger) }
        // Signals are SignalTrap's: it stops the run, whose end then stops the servers.
        var configuration = ServiceGroupConfiguration(
            services: session.servers.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) } + [
                .init(service: job, successTerminationBehavior: .gracefullyShutdownGroup,
                      failureTerminationBehavior: .gracefullyShutdownGroup),
            ],
            logger: logger)
        // Viewers that do not take the end of the stream are cut off.
        configuration.maximumGracefulShutdownDuration = Duration.seconds(3)
        try await ServiceGroup(configuration: configuration).run()
    }

    /// The run itself, with its statistics: the line each second, the JSON lines, the summary.
    private static func execute(_ session: RunSession, parts: [String], options: RunOptions, logger: Logger)
        async throws {
        let run = session.run
        let reporter = StatsReporter(run: run, jsonPath: options.statsJSON, live: options.showsProgress,
                                     budget: session.plan.budget) {
            () -> String? in
            if let blank = run.blankColour { return "blank (\(blank))" }
            if run.paused.load(ordering: .relaxed) { return "paused" }
            return run.counters.windowAwaits.map { "waiting for \($0)" }
        }
        SignalTrap.onStop { run.stop() }
        let control = try openControl(options.control ?? session.plan.isShared, asked: options.control == true,
                                      logger: logger)
        if let control { Thread.detachNamed("podium-control") { control.serve(run, status: reporter.status) } }
        defer { control?.remove() }
        TerminalKeys.start(for: run)
        defer { TerminalKeys.restore() }
        let reporting = Task { await reporter.run() }
        // With a budget, the rate is the budget's to lower (and raise again up to it).
        let bounds = session.plan.frameRates
        let fps = session.plan.budget.map { budget in
            "\(session.plan.fps) fps, the budget's to choose within \(bounds.lowerBound)-\(bounds.upperBound) ("
                + (budget.maxCPU.map { "\($0.plain) cores" } ?? "every frame kept") + ")"
        } ?? "\(session.plan.fps) fps"
        let cursor = session.plan.capture.drawsCursor ? "" : ", no cursor"
        let failure = await session.execute(beforeOutputs: reporter.open) { start in
            let sources = start.sources.map { "capturing \($0) at \(fps)\(cursor)" } + soundParts(start.sounds)
            let lines = startLines(sources + parts, encoders: start.encoders)
                + session.servers.flatMap { ViewerLines.describe($0, quiet: !options.showsProgress) }
            lines.forEach { logger.notice("\($0)") }
        }
        reporting.cancel()
        await reporting.value
        let summary = reporter.finish()
        if options.showsProgress && run.started.load(ordering: .relaxed) {
            StatsLine.clear()
            let label = "summary: "
            // On a terminal, wrapped to its width between parts, aligned under the first.
            let width = Console.isTerminal ? Console.width - "podium: ".count - label.count : nil
            for (index, line) in summary.summaryLines(width: width).enumerated() {
                Console.say((index == 0 ? label : String(repeating: " ", count: label.count)) + line)
            }
            // Each encoder's figures, when there are several.
            if summary.renditions.count > 1 { summary.renditionLines.forEach { Console.say("  " + $0) } }
        }
        if let failure { throw failure }
    }

    /// The control socket, when the run takes one: one that cannot be made is an error when it
    /// was asked for (`--control`), and said in passing when it is there by default.
    private static func openControl(_ wanted: Bool, asked: Bool, logger: Logger) throws(PodiumError)
        -> ControlSocket? {
        guard wanted else { return nil }
        do {
            return try ControlSocket()
        } catch {
            if asked { throw error }
            logger.warning("\(error.said); running without it")
            return nil
        }
    }

    /// Work run as one service of the group: the run.
    private struct Job: Service {
        let body: @Sendable () async throws -> Void
        func run() async throws { try await body() }
    }

    static func logger(_ run: RunOptions) -> Logger {
        logger(run.level)
    }

    /// Podium's logger at `level`, with FFmpeg's messages bridged to lines of their own.
    static func logger(_ level: LogLevel) -> Logger {
        let ffmpeg = Logger(label: "ffmpeg") { _ in ConsoleLogHandler(logLevel: level.ffmpeg, source: "ffmpeg") }
        FFmpegLog.bridge(to: ffmpeg, level: level.ffmpeg)
        return Logger(label: "podium") { _ in ConsoleLogHandler(logLevel: level.podium) }
    }
}

extension SourceLookup.Event {
    /// As the terminal says it.
    var said: String {
        switch self {
        case .pickingWindow: "click the window to capture"
        case .waylandScreencopy: "a Wayland session: capturing its compositor's output, as --source wlr does"
        case .waylandPortal:
            "a Wayland session whose compositor does not copy its outputs: sharing through the desktop's portal, "
                + "as --source portal does"
        case .portalDialog: "asking the desktop what to share: choose in its dialog"
        case .notice(let text): text
        }
    }
}
