import ArgumentParser
import Foundation
import Logging
import PodiumCore
import PodiumMedia
import PodiumX11

extension Podium {
    /// `podium stream`: capture, encode, and send to every `--to`.
    struct Stream: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Capture the screen, encode it, and write it to files and network outputs.",
            discussion: """
                Outputs (--to, as many as you like, all fed from one encoder):
                  FILE.mkv FILE.mp4 FILE.ts FILE.flv   a recording (MP4 is fragmented: playable even if killed)
                  udp://HOST:PORT                      MPEG-TS datagrams of 1316 bytes
                  tcp://HOST:PORT                      MPEG-TS to a listening peer
                  tcp://HOST:PORT?listen               MPEG-TS to the one client that connects

                Ctrl-C (or SIGTERM) stops capture, flushes the encoder and finalizes every output; \
                a second Ctrl-C exits at once.

                Examples:
                  podium stream --to talk.mkv
                  podium stream --duration 30s --fps 60 --to clip.mp4
                  podium stream --monitor HDMI-1 --max-size 1280 --bitrate 3M --to udp://127.0.0.1:5000
                  podium stream --region 800x600+100+100 --codec vp9 --to region.mkv
                  podium stream --to 'tcp://0.0.0.0:9000?listen' --to backup.ts
                """
        )

        @OptionGroup(title: "Capture") var capture: CaptureOptions
        @OptionGroup(title: "Scale") var scale: ScaleOptions
        @OptionGroup(title: "Encode") var encode: EncodeOptions
        @OptionGroup(title: "Run") var runOptions: RunOptions

        @Option(name: .customLong("to"), help: ArgumentHelp("An output: a file or a URL (see above). Repeat for several.", valueName: "URL"),
                transform: parsed(SinkURL.init(parsing:)))
        var outputs: [SinkURL] = []

        func validate() throws {
            guard !outputs.isEmpty else { throw ValidationError("nothing to write to: pass --to FILE or --to URL") }
            if Set(outputs).count != outputs.count { throw ValidationError("--to names the same output twice") }
        }

        func run() async throws {
            let logger = makeLogger()
            // Everything that can be checked without touching the outside world, first.
            if let name = encode.encoder { try EncoderCatalog.validate(name: name, codec: encode.codec) }
            if let preset = encode.preset { try EncoderCatalog.validate(preset: preset, encoderName: encode.encoder, codec: encode.codec) }
            for url in outputs { try MuxerSink.validate(url, codec: encode.codec) }
            for path in outputs.compactMap(\.filePath) { try OutputCheck.creatable(path, flag: "--to", overwrite: runOptions.overwrite) }
            if let path = runOptions.statsJSON { try OutputCheck.creatable(path, flag: "--stats-json", overwrite: runOptions.overwrite) }

            let connection = try XConnection(display: capture.display)
            let region = try captureRegion(connection)
            try connection.requireBGRAPixels()
            let (size, rounded) = scale.request.outputSize(for: region.size)
            if rounded { logger.notice("output size \(scale.request.exactSize(for: region.size)) rounded to \(size): 4:2:0 video needs even sides") }

            FFmpegLog.bridge(to: logger, level: runOptions.verbose ? .info : .error)
            let settings = EncoderSettings(
                codec: encode.codec, encoderName: encode.encoder, size: size, framesPerSecond: capture.fps.framesPerSecond,
                bitrate: encode.bitrate, keyframeInterval: encode.keyint, preset: encode.preset, scaleFilter: scale.scaleFilter
            )
            let encoder = try VideoEncoder(settings: settings, sourceSize: region.size, globalHeader: outputs.contains(where: MuxerSink.needsGlobalHeader))
            let screen = ScreenCapture(connection: connection, region: region, allowSharedMemory: !capture.noSharedMemory, drawCursor: capture.cursor, logger: logger)

            let counters = PipelineCounters(targetFPS: capture.fps.framesPerSecond, sinkURLs: outputs.map(\.description))
            // About two seconds of packets may wait for a slow output before it starts dropping.
            let capacity = max(8, 2 * capture.fps.framesPerSecond)
            let sinks = zip(outputs, counters.sinks).map { url, sinkCounters in
                PacketSink(url: url, encoder: encoder, counters: sinkCounters, capacity: capacity, logger: logger)
            }
            let pipeline = StreamPipeline(
                capture: screen, encoder: encoder, sinks: sinks, counters: counters, fps: capture.fps,
                limits: .init(duration: runOptions.duration, frames: runOptions.frames), logger: logger
            )
            logger.notice("\(describe(connection: connection, region: region, method: screen.method, encoder: encoder))")

            let reporter = try StatsReporter(counters: counters, jsonPath: runOptions.statsJSON, live: !runOptions.quiet)
            let signals = SignalTrap { signal in
                logger.notice("\(signal): stopping; Ctrl-C again to quit at once")
                pipeline.stop()
            }
            let reporting = Task { await reporter.run() }
            let failure = await pipeline.run()
            reporting.cancel()
            await reporting.value
            signals.cancel()
            let summary = reporter.finish()
            if !runOptions.quiet {
                StatsLine.clear()
                Console.say("summary: " + summary.line)
            }
            if let failure { throw failure }
        }

        private func captureRegion(_ connection: XConnection) throws(PodiumError) -> PixelRect {
            let layout = connection.layout()
            let screen = PixelRect(x: 0, y: 0, size: layout.size)
            if let region = capture.region {
                guard screen.contains(region) else {
                    throw .usage("--region '\(region)' is not inside the \(layout.size) screen of \(connection.displayName)")
                }
                return region
            }
            let selector = capture.monitor ?? .primary
            guard let monitor = try selector.select(from: layout.monitors) else { return screen }
            // A monitor can hang off the screen's edge while the screen is being resized.
            guard screen.contains(monitor.rect) else {
                throw .unavailable("monitor \(monitor.name) (\(monitor.rect)) lies outside the \(layout.size) screen")
            }
            return monitor.rect
        }

        private func describe(connection: XConnection, region: PixelRect, method: ScreenGrabber.Method, encoder: VideoEncoder) -> String {
            let settings = encoder.settings
            let rate = settings.bitrate.map { "\($0)bit/s" } ?? "constant quality"
            let preset = encoder.preset.map { ", preset \($0)" } ?? ""
            return "capturing \(region) of \(connection.displayName) with \(method.rawValue) at \(capture.fps) fps"
                + (capture.cursor ? "" : ", no cursor")
                + "; encoding \(settings.codec) with \(encoder.name) (\(encoder.pixelFormatName) \(settings.size), \(rate)\(preset), keyframe every \(settings.keyframeInterval.seconds.formatted())s)"
                + "; to " + outputs.map(\.description).joined(separator: ", ")
        }

        private func makeLogger() -> Logger {
            let level: Logger.Level = runOptions.quiet ? .error : (runOptions.verbose ? .debug : .notice)
            return Logger(label: "podium") { _ in ConsoleLogHandler(logLevel: level) }
        }
    }
}
