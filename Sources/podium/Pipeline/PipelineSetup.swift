import Foundation
import Logging
import PodiumCore
import PodiumMedia
import PodiumX11
import Synchronization

/// The steps `stream` and `mirror` share: checks before anything is opened, opening the capture,
/// building the encode branch, and running with signals and statistics.
enum PipelineSetup {
    /// Everything about the outputs (`--to`, `--stats-json`) that can be checked without touching
    /// the outside world, so a bad one is refused before anything is opened.
    static func validateOutputs(_ outputs: [OutputRequest], encode: EncodeOptions, run: RunOptions)
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
            // As the plan will choose it (`EncodingPlan.settings`).
            let encoder = codec == encode.codec ? encode.encoder : nil
            if let encoder { try EncoderCatalog.validate(name: encoder, codec: codec) }
            if let preset = output.rendition.preset ?? encode.preset {
                try EncoderCatalog.validate(preset: preset, encoderName: encoder, codec: codec)
            }
        }
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
        // Last, once nothing else can fail: an HLS folder is made, and its master playlist written.
        let streams = encoders.map(\.stream)
        for ladder in plan.ladders {
            try HLSFolder.prepare(master: ladder.master)
            try HLSFolder.writeMaster(ladder, streams: streams)
        }
        let described = zip(plan.encodings, encoders).map { encoding, encoder in
            describe(encoder, outputs: plan.outputs(of: encoding))
        }
        return EncodeSetup(branch: branch, encoders: encoders, described: described) {
            // Measured now: each variant's peak and average rate, from its segments.
            for ladder in plan.ladders {
                do throws(PodiumError) {
                    try HLSFolder.writeMaster(ladder, streams: streams)
                } catch {
                    logger.error("\(error.message)")
                }
            }
        }
    }

    /// The counters of a run of `plan`: one per output that gets packets, one per encoder.
    static func counters(_ plan: EncodingPlan, fps: FrameRate, hasWindow: Bool) -> PipelineCounters {
        PipelineCounters(targetFPS: fps.framesPerSecond, sinkURLs: plan.sinks.map(\.description),
                         renditions: plan.encodings.map { (name: $0.name, outputs: plan.outputs(of: $0)) },
                         hasWindow: hasWindow)
    }

    /// The encode side of a run, ready to go.
    struct EncodeSetup {
        var branch: any FrameBranch
        var encoders: [VideoEncoder]
        /// Each encoder and the outputs it feeds, for the start message.
        var described: [String]
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
        let rate = settings.bitrate.map { "\($0)bit/s" } ?? "constant quality"
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

    /// Runs `pipeline` with Ctrl-C handling and statistics, prints the summary, and throws what ended it.
    /// - Parameter startLines: what is captured and where it goes, said as capture starts.
    /// - Parameter finish: called once every output is finalized, before the summary.
    static func run(_ pipeline: Pipeline, startLines: [String], run: RunOptions, logger: Logger,
                    finish: @Sendable () -> Void = {}) async throws {
        let reporter = try StatsReporter(counters: pipeline.counters, jsonPath: run.statsJSON, live: !run.quiet,
                                         logger: logger)
        SignalTrap.onStop { pipeline.stop() }
        let reporting = Task { await reporter.run() }
        let failure = await pipeline.run { startLines.forEach { logger.notice("\($0)") } }
        finish()
        reporting.cancel()
        await reporting.value
        let summary = reporter.finish()
        if !run.quiet && pipeline.started.load(ordering: .relaxed) {
            StatsLine.clear()
            Console.say("summary: " + summary.line)
            // Each encoder's figures, when there are several.
            if summary.renditions.count > 1 { summary.renditionLines.forEach { Console.say("  " + $0) } }
        }
        if let failure { throw failure }
    }

    static func logger(_ run: RunOptions) -> Logger {
        logger(quiet: run.quiet, verbose: run.verbose)
    }

    static func logger(quiet: Bool, verbose: Bool) -> Logger {
        let level: Logger.Level = quiet ? .error : (verbose ? .debug : .notice)
        FFmpegLog.bridge(to: Logger(label: "ffmpeg") { _ in ConsoleLogHandler(logLevel: level) }, level: verbose ? .info : .error)
        return Logger(label: "podium") { _ in ConsoleLogHandler(logLevel: level) }
    }
}
