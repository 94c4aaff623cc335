import ArgumentParser
import Foundation
import PodiumCore
import PodiumX11

extension Podium {
    /// `podium displays`: the screen and its monitors.
    struct Displays: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the screen and its RandR monitors; the primary one is marked.",
            usage: "podium displays [--display <:N>] [--json]",
            discussion: """
                Examples:
                  podium displays
                  podium displays --display :1 --json
                """
        )

        @Option(help: ArgumentHelp("The X display (default: $DISPLAY).", valueName: ":N"))
        var display: String?

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() async throws {
            let display = display
            // A connect may block: on a thread of its own.
            let layout = try await onOwnThread("podium-display") { () throws(PodiumError) in
                try XConnection(display: display).layout()
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(layout), as: UTF8.self))
                return
            }
            print("display \(layout.display) screen \(layout.screen): \(layout.size), \(layout.depth)-bit")
            if layout.monitors.isEmpty { print("  no RandR monitors: the whole screen is captured") }
            for monitor in layout.monitors {
                print("  \(monitor.index)  \(monitor.name)  \(monitor.rect)\(monitor.isPrimary ? "  primary" : "")")
            }
        }
    }
}
