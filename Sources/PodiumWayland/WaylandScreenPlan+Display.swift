import Foundation
public import PodiumCore

extension WaylandScreenPlan {
    /// Connects to the compositor and finds the output `monitor` names: the first by default
    /// (Wayland has no primary output), a name, or an index in `podium displays`' list.
    /// - Parameter display: the compositor's socket; `$WAYLAND_DISPLAY` when `nil`.
    /// - Throws: 69 when there is no compositor there, it cannot copy outputs, or has no such output.
    public static func look(display: String?, monitor: MonitorSelector?, drawsCursor: Bool, tracksDamage: Bool)
        throws(PodiumError) -> WaylandScreenPlan {
        let connection = try WaylandDisplay(name: display)
        guard connection.screencopy != nil else {
            throw .unavailable("the Wayland compositor at '\(connection.name)' has no screencopy "
                               + "(zwlr_screencopy_manager_v1, which wlroots desktops such as sway offer)",
                               remedy: .portal)
        }
        let monitors = connection.monitors
        let names = monitors.map { "\($0.index) \($0.name)" }.joined(separator: ", ")
        let chosen: WaylandMonitor?
        switch monitor ?? .primary {
        case .primary: chosen = monitors.first
        case .name(let name): chosen = monitors.first { $0.name == name }
        case .index(let index): chosen = monitors.first { $0.index == index }
        }
        guard let chosen else {
            throw .unavailable("no such output on '\(connection.name)'; "
                               + (monitors.isEmpty ? "it has none" : "outputs here: \(names)"),
                               about: .monitor("\(monitor ?? .primary)"))
        }
        var plan = WaylandScreenPlan(display: connection.name, output: chosen.name, size: chosen.rect.size,
                                     drawsCursor: drawsCursor, tracksDamage: tracksDamage)
        plan.hasLayerShell = connection.has("zwlr_layer_shell_v1")
        return plan
    }

    /// Finds the output of a wlroots compositor that `wlr` (with the monitor named) asks for.
    public struct Resolver: SourceResolver {
        public init() {}

        public func resolve(_ lookup: SourceLookup) throws(PodiumError) -> (any SourcePlan)? {
            guard case .wlr(let output) = lookup.request else { return nil }
            var plan = try WaylandScreenPlan.look(display: lookup.display, monitor: output ?? lookup.monitor,
                                                  drawsCursor: lookup.drawsCursor, tracksDamage: lookup.tracksDamage)
            if !lookup.masks.isEmpty { try plan.mask(lookup.masks) }
            return plan
        }
    }
}

extension WaylandScreenPlan {
    /// Masks the windows `masks` names, which sway's IPC says where they are (tried once now).
    /// - Throws: 64 for notifications (layer surfaces, which sway's tree does not list); 69 when
    ///   the compositor has no sway IPC.
    mutating func mask(_ masks: PrivacyMasks) throws(PodiumError) {
        guard !masks.notifications else {
            throw .usage("notification pop-ups cannot be masked on a wlroots desktop: they are layer surfaces, "
                         + "which sway's tree does not list")
        }
        let sockets = SwayWindows.socketPaths(display: display, environment: ProcessInfo.processInfo.environment)
        guard !sockets.isEmpty else {
            throw .unavailable("masks on a Wayland output follow the windows through sway's IPC, and there is none "
                               + "for '\(display)' (no $SWAYSOCK, no sway-ipc socket beside it)")
        }
        var failure: PodiumError?
        for socket in sockets {
            do {
                _ = try SwayWindows(socket: socket, output: output, masks: masks)
                (self.masks, ipcSocket) = (masks, socket)
                return
            } catch {
                failure = failure ?? error
            }
        }
        throw failure ?? .unavailable("sway's IPC does not answer")
    }
}
