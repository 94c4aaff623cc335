public import PodiumCore

extension ScreenPlan {
    /// Looks at `display` and finds what to capture on it: `region`, or the monitor `monitor`
    /// picks (the primary one by default), or the whole screen when there are no monitors.
    /// Connects to the display, so it blocks: call it off the cooperative pool.
    /// - Throws: 69 when the display cannot be opened, the monitor is not there or its pixels
    ///   cannot be read; 64 for a region outside the screen.
    public static func look(display: String?, monitor: MonitorSelector? = nil, region: PixelRect? = nil,
                            drawsCursor: Bool = true, sharedMemory: Bool = true, tracksDamage: Bool = true)
        throws(PodiumError) -> ScreenPlan {
        let connection = try XConnection(display: display)
        let layout = connection.layout()
        let screen = PixelRect(x: 0, y: 0, size: layout.size)
        try connection.requireBGRAPixels()
        var area = screen
        var captured: Monitor?
        if let region {
            guard screen.contains(region) else {
                throw .usage("not inside the \(layout.size) screen of " + connection.displayName,
                             about: .region(region))
            }
            area = region
        } else if let chosen = try (monitor ?? .primary).select(from: layout.monitors) {
            // A monitor can hang off the screen's edge while the screen is being resized.
            guard screen.contains(chosen.rect) else {
                throw .unavailable("monitor \(chosen.name) (\(chosen.rect)) lies outside the \(layout.size) screen")
            }
            area = chosen.rect
            captured = chosen
        }
        return ScreenPlan(display: connection.displayName, region: area, monitorName: captured?.name,
                          drawsCursor: drawsCursor, sharedMemory: sharedMemory, tracksDamage: tracksDamage)
    }

    /// Finds a monitor, a rectangle of the screen or another display's primary monitor: what
    /// `monitor:NAME`, `WxH+X+Y` and `:N` name, and the primary monitor when no source is named.
    public struct Resolver: SourceResolver {
        public init() {}

        public func resolve(_ lookup: SourceLookup) throws(PodiumError) -> (any SourcePlan)? {
            var (display, monitor, region) = (lookup.display, lookup.monitor, lookup.region)
            switch lookup.request {
            case nil: break
            case .monitor(let chosen): monitor = chosen
            case .region(let chosen): region = chosen
            case .display(let other): display = other
            default: return nil
            }
            var screen = try ScreenPlan.look(display: display, monitor: monitor, region: region,
                                             drawsCursor: lookup.drawsCursor, sharedMemory: lookup.sharedMemory,
                                             tracksDamage: lookup.tracksDamage)
            (screen.masks, screen.showsRegion) = (lookup.masks, lookup.showsRegion)
            return screen
        }
    }
}
