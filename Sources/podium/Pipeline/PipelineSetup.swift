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
    static func validateOutputs(_ outputs: [SinkURL], encode: EncodeOptions, run: RunOptions) throws(PodiumError) {
        let files = outputs.compactMap(\.filePath).map { (flag: "--to", path: $0) }
        let written = files + (run.statsJSON.map { [(flag: "--stats-json", path: $0)] } ?? [])
        if !outputs.isEmpty {
            if Set(outputs).count != outputs.count { throw .usage("--to names the same output twice") }
            if let name = encode.encoder { try EncoderCatalog.validate(name: name, codec: encode.codec) }
            if let preset = encode.preset {
                try EncoderCatalog.validate(preset: preset, encoderName: encode.encoder, codec: encode.codec)
            }
            for url in outputs { try url.validate(codec: encode.codec) }
        }
        try OutputCheck.distinct(written)
        for url in outputs { try NetworkAddress.resolve(url) }
        for case .rtmp(let target) in outputs {
            if let authorities = target.trustedCertificates, !FileManager.default.isReadableFile(atPath: authorities) {
                throw .usage("--to '\(target)': cannot read the certificate authorities in '\(authorities)'")
            }
        }
        for file in written { try OutputCheck.creatable(file.path, flag: file.flag, overwrite: run.overwrite) }
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

    /// The encoder and its sinks, for `--to` outputs (already validated).
    static func encodeBranch(
        outputs: [SinkURL], region: PixelRect, fps: FrameRate, scale: ScaleOptions, encode: EncodeOptions,
        counters: PipelineCounters, logger: Logger
    ) throws(PodiumError) -> (EncodeBranch, VideoEncoder) {
        let (size, rounded) = scale.request.outputSize(for: region.size)
        if rounded { logger.notice("output size \(scale.request.exactSize(for: region.size)) rounded to \(size): 4:2:0 video needs even sides") }
        let settings = EncoderSettings(
            codec: encode.codec, encoderName: encode.encoder, size: size, framesPerSecond: fps.framesPerSecond,
            bitrate: encode.bitrate, keyframeInterval: encode.keyint, preset: encode.preset, scaleFilter: scale.scaleFilter
        )
        let encoder = try VideoEncoder(settings: settings, sourceSize: region.size,
                                       globalHeader: outputs.contains(where: \.needsGlobalHeader))
        // About two seconds of packets may wait for a slow output before it starts dropping.
        let capacity = max(8, 2 * fps.framesPerSecond)
        // A killed run loses at most this much of a recording.
        let flushInterval = min(.seconds(1), settings.keyframeInterval)
        var writers: [MuxerOutput] = []
        var listeners: [ClientListener] = []
        for (url, sinkCounters) in zip(outputs, counters.sinks) {
            if case .tcpListen = url {
                listeners.append(ClientListener(url: url, counters: sinkCounters, capacity: capacity, logger: logger))
            } else {
                writers.append(MuxerOutput(url: url, flushInterval: flushInterval, counters: sinkCounters,
                                           capacity: capacity, logger: logger))
            }
        }
        let branch = EncodeBranch(encoder: encoder, outputs: writers, listeners: listeners, counters: counters)
        return (branch, encoder)
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
    static func describe(_ encoder: VideoEncoder, outputs: [SinkURL]) -> String {
        let settings = encoder.settings
        let rate = settings.bitrate.map { "\($0)bit/s" } ?? "constant quality"
        let preset = encoder.preset.map { ", preset \($0)" } ?? ""
        return "encoding \(settings.codec) with \(encoder.name) (\(encoder.pixelFormatName) \(settings.size), \(rate)\(preset), keyframe every \(settings.keyframeInterval.seconds.formatted())s)"
            + "; to " + outputs.map(\.description).joined(separator: ", ")
    }

    /// Runs `pipeline` with Ctrl-C handling and statistics, prints the summary, and throws what ended it.
    /// - Parameter startLine: what is captured and where it goes, said as capture starts.
    static func run(_ pipeline: Pipeline, startLine: String, run: RunOptions, logger: Logger) async throws {
        let reporter = try StatsReporter(counters: pipeline.counters, jsonPath: run.statsJSON, live: !run.quiet,
                                         logger: logger)
        SignalTrap.onStop { pipeline.stop() }
        let reporting = Task { await reporter.run() }
        let failure = await pipeline.run { logger.notice("\(startLine)") }
        reporting.cancel()
        await reporting.value
        let summary = reporter.finish()
        if !run.quiet && pipeline.started.load(ordering: .relaxed) {
            StatsLine.clear()
            Console.say("summary: " + summary.line)
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
