/// Which monitor the mirror window goes on, found again whenever the target display's monitors
/// change (a projector plugged in or out).
public struct WindowTarget: Hashable, Sendable {
    /// What a look at the target display's monitors found.
    public enum Search: Hashable, Sendable {
        case found(Monitor)
        /// The monitor asked for, or any monitor that is not being captured, is not there now.
        case absent
        /// The monitor asked for is there but overlaps the captured area: the window would show itself.
        case coversCapture(Monitor)
    }

    /// `--on`, or `nil` for the largest monitor that is not captured.
    public var monitor: MonitorSelector?
    /// The captured areas on the screen the window goes on, which it must not cover.
    public var avoiding: [PixelRect]

    public init(monitor: MonitorSelector?, avoiding: [PixelRect]) {
        self.monitor = monitor
        self.avoiding = avoiding
    }

    /// Picks the monitor among `monitors` of a screen of size `screen` (a screen without RandR
    /// monitors counts as one monitor).
    public func search(_ monitors: [Monitor], screen: PixelSize) -> Search {
        let candidates = Self.candidates(monitors, screen: screen)
        guard let selector = monitor else {
            let free = candidates.filter { !covers($0) }
            return free.max(by: { $0.rect.size.area < $1.rect.size.area }).map(Search.found) ?? .absent
        }
        guard let chosen = try? selector.select(from: candidates) else { return .absent }
        return covers(chosen) ? .coversCapture(chosen) : .found(chosen)
    }

    /// What the search found, said for someone waiting: the reason no window is shown. A monitor
    /// asked for by name or index that is not there is named with the ones that are, so a typo shows.
    public func waitingReason(_ search: Search, display: String, monitors: [Monitor]) -> String? {
        switch search {
        case .found:
            nil
        case .absent:
            monitor.map { selector in
                let present = monitors.isEmpty
                    ? "none" : monitors.map { "\($0.index) \($0.name)" }.joined(separator: ", ")
                return "monitor \(selector) is not on \(display) (there now: \(present))"
            } ?? "\(display) has no monitor besides the captured one"
        case .coversCapture(let chosen):
            "monitor \(chosen.name) on \(display) overlaps the captured area"
        }
    }

    /// What a window waits for, in a few words: the monitor asked for, or any other one.
    public func awaited(on display: String) -> String {
        monitor.map { "\($0)" } ?? "a second monitor on \(display)"
    }

    /// The monitors a window can go on: the RandR ones, or the whole screen when there are none.
    public static func candidates(_ monitors: [Monitor], screen: PixelSize) -> [Monitor] {
        monitors.isEmpty
            ? [Monitor(index: 0, name: "screen", rect: PixelRect(x: 0, y: 0, size: screen), isPrimary: true)] : monitors
    }

    private func covers(_ monitor: Monitor) -> Bool {
        avoiding.contains(where: monitor.rect.intersects)
    }
}
