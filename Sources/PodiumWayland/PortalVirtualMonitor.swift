public import PodiumCore

/// A monitor the desktop makes for a screen cast session, through its ScreenCast portal's virtual
/// source type (KDE Plasma's): the desktop asks the user in its dialog, chooses the size and the
/// place, and takes the monitor away when the session ends, however the run ends.
public final class PortalVirtualMonitor: VirtualMonitor {
    public let name = "the desktop's virtual monitor"
    public let rect: PixelRect
    private let plan: PipeWirePlan

    public var source: (any SourcePlan)? { plan }

    /// Asks the desktop's portal for a virtual monitor, and waits for the user's answer.
    /// - Parameter interrupted: asked a few times a second while the desktop's dialog waits.
    /// - Throws: 77 when the user cancels; 69 when there is no portal, or it makes no virtual
    ///   monitors.
    public init(interrupted: @escaping @Sendable () -> Bool) throws(PodiumError) {
        let portal = try ScreenCastPortal(drawsCursor: true, virtual: true, restoreToken: nil,
                                          interrupted: interrupted)
        let name = "the desktop's virtual monitor"
        // The size the portal says; the first picture's where it says none.
        plan = if let size = portal.shared.size {
            PipeWirePlan(node: portal.shared.node, size: size, name: name, remote: portal)
        } else {
            try PipeWirePlan.look(node: portal.shared.node, name: name, remote: portal)
        }
        rect = PixelRect(x: portal.shared.origin.x, y: portal.shared.origin.y, size: plan.size)
    }

    public func openInput() throws(PodiumError) -> any InputInjector {
        throw .unavailable("a monitor the desktop's portal made takes input through its RemoteDesktop "
                           + "portal, which Podium does not drive yet (on sway, GNOME and X11 it does)",
                           about: .viewerInput)
    }

    public func remove() throws(PodiumError) -> String {
        "the desktop takes its virtual monitor away as the screen cast session ends"
    }
}
