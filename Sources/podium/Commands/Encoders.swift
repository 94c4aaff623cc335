import ArgumentParser
import Foundation
import PodiumCore
import PodiumMedia

extension Podium {
    /// `podium encoders`: what `--codec` and `--encoder` can use here.
    struct Encoders: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "encoders",
            abstract: "List the video encoders that open on this machine; the default of each codec is marked.",
            usage: "podium encoders [--json]",
            discussion: """
                Each encoder is opened once with a small picture, so hardware encoders without a \
                device and encoders missing from this FFmpeg are left out.

                Examples:
                  podium encoders
                  podium encoders --json
                """
        )

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() async throws {
            // Opening every encoder to see which work blocks: on a thread of its own.
            let entries = await onOwnThread("podium-encoders") { EncoderCatalog.available() }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(entries), as: UTF8.self))
                return
            }
            for codec in VideoCodec.allCases {
                let forCodec = entries.filter { $0.codec == codec }
                print("\(codec)\(forCodec.isEmpty ? ": none opens here" : "")")
                for entry in forCodec {
                    let marks = [entry.isDefault ? "default" : nil, entry.isHardware ? "hardware" : nil].compactMap { $0 }
                    print("  \(entry.name)\(marks.isEmpty ? "" : " (" + marks.joined(separator: ", ") + ")")  \(entry.description)")
                }
            }
        }
    }
}
