import ArgumentParser
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

        @OptionGroup var listing: ListingOptions

        func run() async throws {
            let display = listing.display
            // A connect may block: on a thread of its own.
            let layout = try await onOwnThread("podium-display") { () throws(PodiumError) in
                try XConnection(display: display).layout()
            }
            if listing.json {
                try listing.printJSON(layout)
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
