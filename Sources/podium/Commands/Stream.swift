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
        }

        func run() async throws {
            let logger = PipelineSetup.logger(runOptions)
            try PipelineSetup.validateOutputs(outputs, encode: encode, run: runOptions)
            let (connection, region, captured) = try PipelineSetup.openCapture(capture)
            let counters = PipelineCounters(targetFPS: capture.fps.framesPerSecond, sinkURLs: outputs.map(\.description))
            let (branch, encoder) = try PipelineSetup.encodeBranch(
                outputs: outputs, region: region, capture: capture, scale: scale, encode: encode, counters: counters, logger: logger
            )
            let screen = ScreenCapture(connection: connection, region: region, monitorName: captured?.name, allowSharedMemory: !capture.noSharedMemory,
                                       drawCursor: capture.cursor, logger: logger)
            let pipeline = Pipeline(
                capture: screen, branches: [branch], counters: counters, fps: capture.fps,
                limits: .init(duration: runOptions.duration, frames: runOptions.frames), logger: logger
            )
            logger.notice("\(capture.describe(region: region, on: connection, method: screen.method)); \(PipelineSetup.describe(encoder, outputs: outputs))")
            try await PipelineSetup.run(pipeline, run: runOptions, logger: logger)
        }
    }
}
