import ArgumentParser
import Foundation
import PodiumCore
import PodiumMedia

extension Podium {
    /// `podium av-sync`: how far apart picture and sound are in a recording of the clapper.
    struct AVSync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "av-sync",
            abstract: "Measure how far apart picture and sound are in a recording of 'podium scene --kind clapper'.",
            usage: "podium av-sync <input> [--duration <duration>] [--json]",
            discussion: """
                Each white flash of the picture is paired with the beep that began with it; the \
                offset is when the beep begins in the sound less when the flash begins in the \
                picture (positive: the sound is late). It prints the median and the worst offset, \
                and the drift: how much the offset changed from the first quarter of the \
                recording to the last. The input is anything FFmpeg reads: a file, an HLS \
                playlist, a stream's URL (give a live one a --duration).

                Examples:
                  podium scene --display :1 --kind clapper &
                  podium stream --display :1 --audio -t 30s --to clap.mkv
                  podium av-sync clap.mkv
                  podium av-sync hls/live.m3u8 --json
                  podium av-sync rtmp://127.0.0.1/live/key --duration 20s
                """
        )

        @Argument(help: ArgumentHelp("A recording, a playlist or a stream's URL.", valueName: "input"))
        var input: String

        @Option(help: ArgumentHelp("Read only this much of it (a live stream).", valueName: "DURATION"),
                transform: parsed(Duration.init(parsing:)))
        var duration: Duration?

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() async throws {
            let (input, limit) = (input, duration?.seconds)
            // Reading a stream blocks: on a thread of its own.
            let report = try await onOwnThread("podium-av-sync") { () throws(PodiumError) in
                try AVSyncMeter.measure(input, limit: limit)
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                Console.output(String(decoding: try encoder.encode(Summary(report)), as: UTF8.self))
                return
            }
            Console.output(
                "\(report.flashes.count) flashes, \(report.beeps.count) beeps, \(report.offsets.count) paired")
            guard let median = report.median, let worst = report.worst else {
                throw PodiumError.unavailable("av-sync '\(input)': no flash with a beep beside it; "
                                              + "is it a recording of 'podium scene --kind clapper' with --audio?")
            }
            Console.output("offset (sound less picture): median \(median.fixed(1)) ms, worst \(worst.fixed(1)) ms"
                  + (report.drift.map { ", drift \($0.fixed(1)) ms" } ?? ""))
        }

        /// What `--json` prints.
        struct Summary: Encodable {
            var flashes: Int
            var beeps: Int
            var offsets: [Double]
            var medianMilliseconds: Double?
            var worstMilliseconds: Double?
            var driftMilliseconds: Double?

            init(_ report: AVSyncReport) {
                flashes = report.flashes.count
                beeps = report.beeps.count
                offsets = report.offsets
                medianMilliseconds = report.median
                worstMilliseconds = report.worst
                driftMilliseconds = report.drift
            }
        }
    }
}
