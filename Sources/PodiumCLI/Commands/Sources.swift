import ArgumentParser
import Foundation
import PodiumCore
import PodiumMedia
import PodiumSound
import PodiumWayland

extension Podium {
    /// `podium sources`: what `--audio` can record.
    struct Sources: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sources",
            abstract: "List the sound sources --audio can record; the desktop's and the default input are marked.",
            usage: "podium sources [--video] [--json]",
            discussion: """
                The sound server is the user's PipeWire (through its PulseAudio interface) or \
                PulseAudio; PULSE_SERVER names another. With PipeWire, the applications playing \
                now are listed too, by the name --audio app:NAME takes. --video lists the cameras \
                --source camera can capture instead: PipeWire's video sources (webcams, virtual \
                cameras), or the V4L2 devices (/dev/video*) where PipeWire shows none.

                Examples:
                  podium sources
                  podium sources --json
                  podium stream --audio alsa_input.usb-mic --to talk.mkv
                  podium stream --audio app:firefox --to talk.mkv
                  podium sources --video
                  podium mirror --source :0 --source camera --layout over
                """
        )

        @Flag(help: "List the cameras (PipeWire's video sources, or V4L2 devices) instead.")
        var video = false

        @Flag(help: "Print JSON instead of text.")
        var json = false

        /// One source as `--json` prints it.
        struct Listed: Encodable {
            var name: String
            var description: String
            var monitorOf: String?
            /// `desktop` (the default output's monitor) or `mic` (the default input), when it is one.
            var defaultFor: [String]
        }

        /// What `--json` prints.
        struct Listing: Encodable {
            var server: String
            var sources: [Listed]
            /// The applications playing now (PipeWire's output streams), for `--audio app:NAME`.
            var applications: [String]
        }

        func run() async throws {
            if video { return try await listCameras() }
            // Connecting may block: on a thread of its own.
            let servers = SoundServers(environment: Invocation.current.environment)
            let (server, applications) = try await onOwnThread("podium-sound") { () throws(PodiumError) in
                let playing = PipeWireSoundSource.isReachable(remote: servers.pipeWire)
                    ? ((try? PipeWireNode.list("Stream/Output/Audio", remote: servers.pipeWire)) ?? [])
                        .map { $0.application ?? $0.name }
                    : []
                return (try SoundServerInfo.read(server: servers.pulse), Set(playing).sorted())
            }
            let listed = server.sources.map { source in
                Listed(name: source.name, description: source.description, monitorOf: source.monitorOf,
                       defaultFor: (source == server.desktopSource ? ["desktop"] : [])
                           + (source.name == server.defaultSource ? ["mic"] : []))
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                let listing = Listing(server: server.serverName, sources: listed, applications: applications)
                Console.output(String(decoding: try encoder.encode(listing), as: UTF8.self))
                return
            }
            Console.output("sound server: \(server.serverName)")
            if listed.isEmpty { Console.output("  no sources") }
            for source in listed {
                let marks = source.defaultFor.map { "  --audio \($0)" }.joined()
                Console.output("  \(source.name)  \(source.description)\(marks)")
            }
            guard !applications.isEmpty else { return }
            Console.output("applications playing (--audio app:NAME):")
            for application in applications { Console.output("  \(application)") }
        }

        /// `--video`: the cameras, by the name `--source camera:NAME` takes: PipeWire's (or the
        /// Camera portal's), else the V4L2 devices, which `camera` then reads.
        private func listCameras() async throws {
            struct Listed: Encodable, Sendable {
                var name: String
                var label: String?
                var node: UInt32?
            }
            let (heading, listed) = try await onOwnThread("podium-cameras") { () throws(PodiumError) in
                let (cameras, throughPortal) = try Camera.listReachable()
                if cameras.isEmpty, case let devices = DeviceCamera.list(), !devices.isEmpty {
                    return ("cameras (V4L2 devices):", devices.map { Listed(name: $0.path, label: $0.label) })
                }
                return (throughPortal ? "cameras (through the desktop's Camera portal):"
                            : "cameras (PipeWire video sources):",
                        cameras.map { Listed(name: $0.name, label: $0.label, node: $0.node) })
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                Console.output(String(decoding: try encoder.encode(["cameras": listed]), as: UTF8.self))
                return
            }
            Console.output(heading)
            if listed.isEmpty { Console.output("  none") }
            for camera in listed {
                Console.output("  \(camera.name)" + (camera.label.map { "  \($0)" } ?? "")
                               + "  --source camera:\(camera.name)")
            }
        }
    }
}
