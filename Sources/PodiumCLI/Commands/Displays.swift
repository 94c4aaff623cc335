import ArgumentParser
import PodiumCore
import PodiumX11
import PodiumWayland
import Foundation

extension Podium {
    /// `podium displays`: the screen and its monitors.
    struct Displays: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "displays",
            abstract: "List the X screen and its RandR monitors (the primary one marked), and a Wayland compositor's "
                + "outputs.",
            usage: "podium displays [--display <:N|wayland-N>] [--json]",
            discussion: """
                --display takes a Wayland compositor's socket too, by name or path (default: \
                $WAYLAND_DISPLAY); with both, $DISPLAY's X screen and the compositor are listed.

                Examples:
                  podium displays
                  podium displays --display :1 --json
                  podium displays --display wayland-1
                """
        )

        @OptionGroup var listing: ListingOptions

        func run() async throws {
            // --display :N or $DISPLAY is an X server; --display wayland-N or $WAYLAND_DISPLAY a compositor.
            let environment = Invocation.current.environment
            let given = listing.display
            let x11 = given.map { $0.hasPrefix(":") } ?? !environment["DISPLAY", default: ""].isEmpty
            let wayland = given.map { $0.hasPrefix(":") ? nil : $0 }
                ?? environment["WAYLAND_DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
            // A connect may block: on a thread of its own.
            let layout = x11 || wayland == nil ? try await onOwnThread("podium-display") { () throws(PodiumError) in
                try XConnection(display: given).layout()
            } : nil
            let outputs = try await wayland.asyncMap { name in
                try await onOwnThread("podium-wayland") { () throws(PodiumError) in
                    let connection = try WaylandDisplay(name: name)
                    return (connection.name, connection.monitors, connection.canCopyOutputs)
                }
            }
            if listing.json {
                switch (layout, outputs) {
                case (let layout?, nil): try listing.printJSON(layout)
                case (nil, let outputs?): try listing.printJSON(WaylandListing(outputs))
                default: try listing.printJSON(BothListings(x11: layout, wayland: outputs.map(WaylandListing.init)))
                }
                return
            }
            if let layout {
                Console.output("display \(layout.display) screen \(layout.screen): \(layout.size), \(layout.depth)-bit")
                if layout.monitors.isEmpty { Console.output("  no RandR monitors: the whole screen is captured") }
                for monitor in layout.monitors {
                    Console.output(
                        "  \(monitor.index)  \(monitor.name)  \(monitor.rect)\(monitor.isPrimary ? "  primary" : "")")
                }
            }
            if let (name, monitors, copies) = outputs {
                // A compositor that does not copy its outputs (GNOME, KDE) shares them through its portal.
                let how = copies ? "--source wlr --monitor NAME" : "no screencopy: --source portal shares one"
                Console.output(
                    "wayland display \(name): \(monitors.count) output\(monitors.count == 1 ? "" : "s") (\(how))")
                for monitor in monitors {
                    Console.output("  \(monitor.index)  \(monitor.name)  \(monitor.rect)  \(monitor.description)")
                }
            }
        }
    }

    /// A compositor's outputs, for `--json`.
    struct WaylandListing: Encodable {
        var display: String
        var outputs: [WaylandMonitor]
        /// Whether `--source wlr` can capture them (wlroots' screencopy); `--source portal` otherwise.
        var screencopy: Bool

        init(_ found: (display: String, outputs: [WaylandMonitor], screencopy: Bool)) {
            (display, outputs, screencopy) = found
        }
    }

    /// An X server's screen and a compositor's outputs, both found, for `--json`.
    struct BothListings: Encodable {
        var x11: DisplayLayout?
        var wayland: WaylandListing?
    }
}

extension Optional {
    /// The value made into another by an async step, or `nil`.
    func asyncMap<Other>(_ transform: (Wrapped) async throws -> Other) async rethrows -> Other? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
