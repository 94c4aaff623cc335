import ArgumentParser
import Foundation
import PodiumCast
import PodiumCore
import PodiumRun

extension Podium {
    /// `podium cast`: the TVs on the network, or the screen mirrored to one of them.
    struct Cast: AsyncParsableCommand, StopsCleanly {
        static let configuration = CommandConfiguration(
            commandName: "cast",
            abstract: "List the TVs on the network (DLNA renderers), or mirror the screen to one.",
            usage: "podium cast [--json] [--wait <duration>]  |  podium cast <name> [options]",
            discussion: """
                Without a name, asks every network this machine is on which media renderers \
                (UPnP AV: smart TVs, set-top boxes, Kodi, gmediarender) are there, and lists each \
                with its model, its address and whether it plays Podium's stream (MPEG-TS with \
                H.264 and AAC).

                With a name (or a part of one, any case), mirrors the screen to that TV, as \
                podium stream --to cast:NAME does: Podium serves the live stream over HTTP on the \
                address that reaches the TV and tells the TV to play it. A TV that goes away is \
                said once and cast to again when it answers. Ctrl-C stops it on the TV too. \
                Every option of podium stream is taken, and --to adds more outputs.

                Examples:
                  podium cast
                  podium cast --json
                  podium cast 'Living Room'
                  podium cast tv --audio --fps 30 --max-size 1280
                  podium cast tv --to talk.mkv
                  podium stream --to cast:tv --to http://0.0.0.0:8080
                """
        )

        @Argument(help: ArgumentHelp("A part of the TV's name, as the list shows it.", valueName: "name"))
        var name: String?

        @Flag(help: "List as JSON instead of text.")
        var json = false

        @Option(help: ArgumentHelp("How long to wait for TVs to answer (listing).", valueName: "duration"),
                transform: parsed(Self.searchTime))
        var wait: Duration = .milliseconds(1500)

        /// `--wait`: 200 ms to 30 s.
        @Sendable static func searchTime(_ text: String) throws(OptionParseError) -> Duration {
            let wait = try Duration(parsing: text)
            guard (Duration.milliseconds(200)...Duration.seconds(30)).contains(wait) else {
                throw OptionParseError("expected 200ms to 30s")
            }
            return wait
        }

        @OptionGroup(title: "Output") var output: OutputOptions
        @OptionGroup(title: "Capture") var capture: CaptureOptions
        @OptionGroup(title: "Scale") var scale: ScaleOptions
        @OptionGroup(title: "Encode") var encode: EncodeOptions
        @OptionGroup(title: "Sound") var sound: SoundOptions
        @OptionGroup(title: "Run") var runOptions: RunOptions

        func validate() throws {
            if let name, name.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError("<name> '\(name)': give a part of a TV's name, as podium cast lists them")
            }
            if name == nil && !output.outputs.isEmpty {
                throw ValidationError("--to goes with a TV's name: podium cast NAME --to …")
            }
            if name != nil && json {
                throw ValidationError("--json lists the TVs; it does not go with a name")
            }
        }

        func run() async throws {
            guard let name else { return try await list() }
            let tv = try OutputCatalog.destination(parsing: "cast:\(name)")
            let job = StreamJob(outputs: [tv] + output.outputs, hotkeys: try HotkeyOptions.parse([]), scale: scale,
                                encode: encode, sound: sound, runOptions: runOptions)
            try await job.check()
            try await job.run(capture: capture)
        }

        private func list() async throws {
            let wait = self.wait
            let found = await onOwnThread("podium-cast") { Renderer.discover(wait: wait) }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                Console.output(String(decoding: try encoder.encode(found.renderers.map(Listed.init)), as: UTF8.self))
                return
            }
            if found.renderers.isEmpty { Console.output("no TV answered on this machine's networks") }
            for renderer in found.renderers {
                let model = [renderer.manufacturer, renderer.model].filter { !$0.isEmpty }.joined(separator: " ")
                Console.output("\(renderer.name)  (\(model.isEmpty ? "" : model + ", ")\(renderer.address))")
                if let format = renderer.streamFormat {
                    Console.output("    plays Podium's stream as \(format.mimeType): podium cast '\(renderer.name)'")
                } else {
                    Console.output("    plays none of Podium's formats; it takes "
                          + (renderer.accepts.isEmpty ? "nothing over HTTP" : renderer.accepts.joined(separator: ", ")))
                }
            }
            for refusal in found.refused { Console.say("refused: \(refusal)") }
        }

        /// A renderer as `--json` lists it.
        private struct Listed: Encodable {
            var name, manufacturer, model, address, localAddress, location: String
            var accepts: [String]
            /// The MIME type Podium's stream goes to it as; `nil` when it plays none.
            var streamType: String?

            init(_ renderer: Renderer) {
                (name, manufacturer, model) = (renderer.name, renderer.manufacturer, renderer.model)
                (address, localAddress, location) = (renderer.address, renderer.localAddress, renderer.location)
                accepts = renderer.accepts
                streamType = renderer.streamFormat?.mimeType
            }
        }
    }
}
