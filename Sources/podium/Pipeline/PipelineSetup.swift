import Foundation
import Logging
import PodiumCore
import PodiumMedia
import PodiumWeb
import PodiumX11
import ServiceLifecycle
import Synchronization

/// The steps `stream` and `mirror` share: checks before anything is opened, opening the capture,
/// building the encode branch, and running with signals and statistics.
enum PipelineSetup {
    /// Everything about the outputs (`--to`, `--stats-json`) that can be checked without touching
    /// the outside world, so a bad one is refused before anything is opened.
    static func validateOutputs(_ outputs: [OutputRequest], viewers: [ViewerRequest] = [], encode: EncodeOptions,
                                run: RunOptions) throws(PodiumError) {
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
            // As the plan will choose it (`EncodingPlan.settings`).
            let encoder = codec == encode.codec ? encode.encoder : nil
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
        for file in files + (run.statsJSON.map { [(flag: "--stats-json", path: $0)] } ?? []) {
            try OutputCheck.creatable(file.path, flag: file.flag, overwrite: run.overwrite)
        }
        for playlist in playlists { try HLSFolder.check(master: playlist, overwrite: run.overwrite) }
    }

    /// The browser viewers: H.264, one server a port, files that can be read.
    private static func validateViewers(_ viewers: [ViewerRequest], encode: EncodeOptions) throws(PodiumError) {
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

    /// The captured display, the rectangle to capture on it, and the monitor it is (if any).
    static func openCapture(_ capture: CaptureSource) throws(PodiumError) -> (XConnection, PixelRect, Monitor?) {
        let connection = try XConnection(display: capture.display)
        let layout = connection.layout()
        let screen = PixelRect(x: 0, y: 0, size: layout.size)
        if let region = capture.region {
            guard screen.contains(region) else {
                throw .usage("--region '\(region)' is not inside the \(layout.size) screen of \(connection.displayName)")
            }
            try connection.requireBGRAPixels()
            return (connection, region, nil)
        }
        let selector = capture.monitor ?? .primary
        guard let monitor = try selector.select(from: layout.monitors) else {
            try connection.requireBGRAPixels()
            return (connection, screen, nil)
        }
        // A monitor can hang off the screen's edge while the screen is being resized.
        guard screen.contains(monitor.rect) else {
            throw .unavailable("monitor \(monitor.name) (\(monitor.rect)) lies outside the \(layout.size) screen")
        }
        try connection.requireBGRAPixels()
        return (connection, monitor.rect, monitor)
    }

    /// The encoders of `plan` and their outputs, as one branch of the pipeline: a single encoding
    /// converts and encodes on one thread; several share one conversion (`LadderBranch`). HLS
    /// folders are made and their master playlists written here, once every encoder is open.
    static func encodeBranch(
        plan: EncodingPlan, region: PixelRect, fps: FrameRate, counters: PipelineCounters, logger: Logger
    ) throws(PodiumError) -> EncodeSetup {
        for notice in plan.notices { logger.notice("\(notice)") }
        let single = plan.encodings.count == 1
        var encoders: [VideoEncoder] = []
        for (index, encoding) in plan.encodings.enumerated() {
            let encoder = try VideoEncoder(settings: encoding.settings, sourceSize: single ? region.size : nil,
                                           globalHeader: encoding.globalHeader, streamID: index)
            encoder.plannedSource = region.size
            encoders.append(encoder)
        }
        // About two seconds of packets may wait for a slow output before it starts dropping.
        let capacity = max(8, 2 * fps.framesPerSecond)
        // A killed run loses at most this much of a recording.
        let flushInterval = min(.seconds(1), plan.keyframeInterval)
        let required = RequiredOutputs(count: plan.sinks.count)
        let outputs = zip(plan.encodings, encoders).map { encoding, encoder in
            var writers: [MuxerOutput] = []
            var listeners: [ClientListener] = []
            for index in encoding.sinks {
                let url = plan.sinks[index]
                if case .tcpListen = url {
                    listeners.append(ClientListener(url: url, counters: counters.sinks[index], capacity: capacity,
                                                    logger: logger))
                } else {
                    writers.append(MuxerOutput(url: url, flushInterval: flushInterval, counters: counters.sinks[index],
                                               capacity: capacity, logger: logger))
                }
            }
            return RenditionOutputs(stream: encoder.stream, sinks: writers, listeners: listeners, required: required)
        }
        // Each viewers' server gets each of its renditions from a guest of that encoder's hub.
        let viewerFeeds = plan.viewers.map { viewers in
            viewers.renditions.map { rendition in
                let feed = ViewerFeed(name: rendition.name, hub: outputs[rendition.encoding].hub)
                outputs[rendition.encoding].add(guest: feed)
                return feed
            }
        }
        let branch: any FrameBranch
        if single {
            branch = EncodeBranch(encoder: encoders[0], outputs: outputs[0], counters: counters)
        } else {
            // Each smaller size is made once, for every encoder of that size.
            let converter = try PictureConverter(size: region.size,
                                                 scaledTo: encoders.map(\.settings.size).filter { $0 != region.size },
                                                 count: LadderBranch.pictureCount(renditions: encoders.count),
                                                 filter: plan.encodings[0].settings.scaleFilter)
            let renditions = (0..<encoders.count).map { index in
                LadderRendition(encoder: encoders[index], outputs: outputs[index], counters: counters.renditions[index],
                                level: converter.sizes.firstIndex(of: encoders[index].settings.size) ?? 0)
            }
            branch = LadderBranch(converter: converter, renditions: renditions, keyframeInterval: plan.keyframeInterval,
                                  counters: counters)
        }
        let streams = encoders.map(\.stream)
        let described = encoders.indices.map { describe(encoders[$0], outputs: plan.outputs(ofEncoding: $0)) }
        let board = counters.viewers ?? ViewerBoard()
        var servers: [ViewerServer] = []
        for viewers in plan.viewers {
            servers.append(try ViewerServer(options: viewers.options, board: board, clock: MonotonicClock(),
                                            logger: logger))
        }
        return EncodeSetup(
            branch: branch, encoders: encoders, described: described, servers: servers, viewerFeeds: viewerFeeds,
            prepare: { () throws(PodiumError) in
                // Once the viewers' servers listen, nothing else can fail: an HLS folder is made,
                // and its master playlist written.
                for ladder in plan.ladders {
                    try HLSFolder.prepare(master: ladder.master)
                    try HLSFolder.writeMaster(ladder, streams: streams)
                }
            },
            finish: {
                // Measured now: each variant's peak and average rate, from its segments.
                for ladder in plan.ladders {
                    do throws(PodiumError) {
                        try HLSFolder.writeMaster(ladder, streams: streams)
                    } catch {
                        logger.error("\(error.message)")
                    }
                }
            })
    }

    /// The counters of a run of `plan`: one per output that gets packets, one per encoder.
    static func counters(_ plan: EncodingPlan, fps: FrameRate, hasWindow: Bool) -> PipelineCounters {
        PipelineCounters(targetFPS: fps.framesPerSecond, sinkURLs: plan.sinks.map(\.description),
                         renditions: plan.encodings.indices.map {
                             (name: plan.encodings[$0].name, outputs: plan.outputs(ofEncoding: $0))
                         },
                         hasWindow: hasWindow, servesViewers: !plan.viewers.isEmpty)
    }

    /// The encode side of a run, ready to go.
    struct EncodeSetup: Sendable {
        var branch: any FrameBranch
        var encoders: [VideoEncoder]
        /// Each encoder and the outputs it feeds, for the start message.
        var described: [String]
        /// The browser viewers' servers, and for each its renditions, largest first.
        var servers: [ViewerServer]
        var viewerFeeds: [[ViewerFeed]]
        /// Called once the servers listen, as capture is about to start: HLS folders are made.
        var prepare: @Sendable () throws(PodiumError) -> Void
        /// Called once the run is over: HLS master playlists get their measured rates.
        var finish: @Sendable () -> Void
    }

    /// The capture and the pipeline over `branches`.
    /// - Returns: the pipeline, and how it grabs (for the start message).
    static func pipeline(
        capturing connection: XConnection, region: PixelRect, captured: Monitor?, capture: CaptureSource, fps: FrameRate, branches: [any FrameBranch],
        counters: PipelineCounters, limits: Pipeline.Limits, logger: Logger
    ) -> (Pipeline, ScreenGrabber.Method) {
        // Each branch holds up to two frames (one pending, one in use), and a window one more on screen.
        let screen = ScreenCapture(connection: connection, region: region, monitorName: captured?.name, allowSharedMemory: !capture.noSharedMemory,
                                   drawCursor: capture.cursor, tracksDamage: !capture.constantFPS,
                                   bufferCount: 2 + 2 * branches.count + (counters.hasWindow ? 1 : 0), logger: logger)
        let pipeline = Pipeline(capture: screen, branches: branches, counters: counters, fps: fps, idleFPS: capture.idleFPS,
                                limits: limits, logger: logger)
        return (pipeline, screen.method)
    }

    /// One line describing an encoder, for the start message.
    static func describe(_ encoder: VideoEncoder, outputs: [String]) -> String {
        let settings = encoder.settings
        let rate = settings.bitrate.map { "\($0)bit/s" }
            ?? settings.quality.map { "crf \($0.plain)" } ?? "constant quality"
        let preset = encoder.preset.map { ", preset \($0)" } ?? ""
        return "encoding \(settings.codec) with \(encoder.name) (\(encoder.pixelFormatName) \(settings.size), \(rate)\(preset), keyframe every \(settings.keyframeInterval.seconds.formatted())s)"
            + " to " + outputs.joined(separator: ", ")
    }

    /// What is captured and where it goes, said as capture starts: one line, or with several
    /// encoders a line for each.
    static func startLines(_ parts: [String], encoders: [String]) -> [String] {
        guard encoders.count > 1 else { return [(parts + encoders).joined(separator: "; ")] }
        return [(parts + ["\(encoders.count) encoders:"]).joined(separator: "; ")] + encoders.map { "  " + $0 }
    }

    /// Runs `pipeline` with Ctrl-C handling and statistics, and the viewers' servers of `encode`
    /// beside it in one service group; prints the summary, and throws what ended it.
    /// - Parameter startLines: what is captured and where it goes, said as capture starts.
    static func run(_ pipeline: Pipeline, startLines: [String], encode: EncodeSetup?, run: RunOptions,
                    logger: Logger) async throws {
        let servers = encode?.servers ?? []
        let job = Job { try await start(pipeline, startLines: startLines, encode: encode, run: run, logger: logger) }
        // Signals are SignalTrap's: it stops the pipeline, whose end then stops the servers.
        var configuration = ServiceGroupConfiguration(
            services: servers.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) } + [
                .init(service: job, successTerminationBehavior: .gracefullyShutdownGroup,
                      failureTerminationBehavior: .gracefullyShutdownGroup),
            ],
            logger: logger)
        // Viewers that do not take the end of the stream are cut off.
        configuration.maximumGracefulShutdownDuration = Duration.seconds(3)
        try await ServiceGroup(configuration: configuration).run()
    }

    /// Once the viewers' servers listen: HLS folders are made, the servers get their renditions,
    /// and the pipeline runs.
    private static func start(_ pipeline: Pipeline, startLines: [String], encode: EncodeSetup?, run: RunOptions,
                              logger: Logger) async throws {
        let servers = encode?.servers ?? []
        // A port in use ends the run here, before anything was captured or written.
        for server in servers { try await server.listening() }
        try encode?.prepare()
        for (server, feeds) in zip(servers, encode?.viewerFeeds ?? []) {
            server.offer(feeds) { pipeline.paused.load(ordering: .relaxed) }
        }
        defer { servers.forEach { $0.close() } }
        let lines = startLines + servers.flatMap { ViewerLines.describe($0, quiet: !run.showsProgress) }
        try await runPipeline(pipeline, startLines: lines, run: run, logger: logger) { encode?.finish() }
    }

    /// The pipeline's run, once everything is ready.
    private static func runPipeline(_ pipeline: Pipeline, startLines: [String], run: RunOptions, logger: Logger,
                                    finish: @Sendable () -> Void) async throws {
        let reporter = try StatsReporter(counters: pipeline.counters, jsonPath: run.statsJSON, live: run.showsProgress,
                                         logger: logger) {
            if pipeline.paused.load(ordering: .relaxed) { return "paused" }
            return pipeline.counters.windowAwaits.withLock { $0 }.map { "waiting for \($0)" }
        }
        SignalTrap.onStop { pipeline.stop() }
        let reporting = Task { await reporter.run() }
        let failure = await pipeline.run { startLines.forEach { logger.notice("\($0)") } }
        finish()
        reporting.cancel()
        await reporting.value
        let summary = reporter.finish()
        if run.showsProgress && pipeline.started.load(ordering: .relaxed) {
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

    /// Work run as one service of the group: the pipeline's run.
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
