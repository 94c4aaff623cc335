public import PodiumCore

extension WindowSourcePlan {
    /// Looks at `display` and finds the window `selector` names among those shown (or lets the
    /// user click one, for `pick`). Connects to the display, so it blocks: call it off the
    /// cooperative pool.
    /// - Parameter picking: called before waiting for a click, to tell the user to click.
    /// - Throws: 69 when the display cannot be opened or lacks Composite, or no shown window
    ///   matches (the message lists those there are); 64 when a name matches several.
    public static func look(display: String?, selector: WindowSelector, drawsCursor: Bool = true,
                            sharedMemory: Bool = true, tracksDamage: Bool = true, exitWhenGone: Bool = false,
                            picking: () -> Void = {}) throws(PodiumError) -> WindowSourcePlan {
        let connection = try XConnection(display: display)
        try connection.requireBGRAPixels()
        try connection.requireComposite()
        let atoms = WindowAtoms(connection)
        let shown = connection.clientWindows().filter(\.isMapped)
        var chosen: ClientWindow
        switch selector {
        case .pick:
            picking()
            let clicked = try connection.pickWindow()
            let client = connection.clientWindow(of: clicked, atoms: atoms, depth: 3) ?? clicked
            guard let described = connection.describe(client, atoms: atoms) else {
                throw .unavailable("the window clicked closed", about: .window(.pick))
            }
            chosen = described
        case .id(let id) where !shown.contains(where: { $0.id == id }):
            // An id `xwininfo` printed may be a frame's: its client is meant.
            let client = connection.clientWindow(of: id, atoms: atoms, depth: 3) ?? id
            guard let described = connection.describe(client, atoms: atoms), described.isMapped else {
                throw .unavailable("no such window is shown; " + WindowSelector.listing(shown),
                                   about: .window(selector))
            }
            chosen = described
        default:
            chosen = try selector.select(from: shown)
        }
        var awaited = chosen.title
        if case .name(let name) = selector { awaited = name }
        return WindowSourcePlan(display: connection.displayName, window: chosen, awaitedName: awaited,
                                drawsCursor: drawsCursor, sharedMemory: sharedMemory, tracksDamage: tracksDamage,
                                exitWhenGone: exitWhenGone)
    }

    /// Finds the window `window:NAME|ID|pick` names.
    public struct Resolver: SourceResolver {
        public init() {}

        public func resolve(_ lookup: SourceLookup) throws(PodiumError) -> (any SourcePlan)? {
            guard case .window(let selector) = lookup.request else { return nil }
            return try WindowSourcePlan.look(display: lookup.display, selector: selector,
                                             drawsCursor: lookup.drawsCursor, sharedMemory: lookup.sharedMemory,
                                             tracksDamage: lookup.tracksDamage, exitWhenGone: lookup.exitWhenGone) {
                lookup.events(.pickingWindow)
            }
        }
    }
}
