import ArgumentParser
import Foundation
import PodiumCore
import PodiumMedia

extension Podium {
    /// `podium encoders`: what `--codec` and `--encoder` can use here.
    struct Encoders: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "encoders",
            abstract: "List the video encoders of this machine, the GPU's with why they cannot be used, if not.",
            usage: "podium encoders [--vaapi-device PATH|:N] [--json]",
            discussion: """
                Software encoders are opened once with a small picture; those that do not open are \
                left out. The GPU's (VAAPI) are asked of the device's driver, NVIDIA's (NVENC) of its \
                libraries, and each is listed with "ok" or the reason it cannot be used: no device, \
                no driver, driver init failed, no PROFILE profile, decode only, no encode entrypoint, \
                session limit, not in this FFmpeg, no libcuda. The default of each codec is marked: \
                the GPU's when it can be used (--encoder auto), else the first software one.

                Examples:
                  podium encoders
                  podium encoders --vaapi-device /dev/dri/renderD129
                  podium encoders --json
                """
        )

        @Option(name: .customLong("vaapi-device"),
                help: ArgumentHelp("The GPU to ask: a render node or an X display (default: "
                                   + "\(VAAPIProbe.renderNode) when there is one, else $DISPLAY).",
                                   valueName: "PATH|:N"))
        var vaapiDevice: String?

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() async throws {
            let display = Invocation.current.environment["DISPLAY"]
            let device = vaapiDevice ?? VAAPIProbe.defaultDevice(display: display)
            // Opening every encoder to see which work blocks: on a thread of its own.
            let entries = await onOwnThread("podium-encoders") { EncoderCatalog.available(vaapiDevice: device) }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                Console.output(String(decoding: try encoder.encode(entries), as: UTF8.self))
                return
            }
            for codec in VideoCodec.allCases {
                let forCodec = entries.filter { $0.codec == codec }
                Console.output("\(codec)\(forCodec.contains { $0.reason == nil } ? "" : ": none opens here")")
                for entry in forCodec {
                    let marks = [entry.isDefault ? "default" : nil, entry.isHardware ? "hardware" : nil]
                        .compactMap { $0 }
                    let named = entry.name + (marks.isEmpty ? "" : " (" + marks.joined(separator: ", ") + ")")
                    guard let api = entry.api else {
                        Console.output("  \(named)  \(entry.description)")
                        continue
                    }
                    let on = entry.device.map { " on \($0)" } ?? ""
                    Console.output("  \(named)  \(api.uppercased())\(on): \(entry.reason ?? "ok")")
                }
            }
        }
    }
}
