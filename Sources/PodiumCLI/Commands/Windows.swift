import ArgumentParser
import PodiumCore
import PodiumX11

extension Podium {
    /// `podium windows`: the windows `--window` can capture.
    struct Windows: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "windows",
            abstract: "List the display's application windows: ids, titles, classes, sizes.",
            usage: "podium windows [--display <:N>] [--json]",
            discussion: """
                The id, the title, a part of it or the class names a window to --window.

                Examples:
                  podium windows
                  podium windows --display :1 --json
                  podium stream --window 0x1a00007 --to slides.mkv
                """
        )

        @OptionGroup var listing: ListingOptions

        func run() async throws {
            let display = listing.display
            // A connect may block: on a thread of its own.
            let (name, windows) = try await onOwnThread("podium-display") { () throws(PodiumError) in
                let connection = try XConnection(display: display)
                return (connection.displayName, connection.clientWindows())
            }
            if listing.json {
                try listing.printJSON(windows)
                return
            }
            Console.output("display \(name): \(windows.count) window\(windows.count == 1 ? "" : "s")")
            for window in windows {
                let names = window.className.isEmpty ? "" : "  \(window.instance)/\(window.className)"
                Console.output("  \(window.hexID)  '\(window.title)'\(names)  \(window.rect)"
                      + (window.isMapped ? "" : "  hidden"))
            }
        }
    }
}
