/// Where `--to` sends the picture: an encoded stream (a file or a URL), or a window on a monitor.
public enum Destination: Hashable, Sendable, CustomStringConvertible {
    case stream(SinkURL)
    /// `window` or `window:MONITOR`: the picture scaled to a fullscreen window, no encoder involved.
    case window(MonitorSelector?)

    /// Reads `window`, `window:MONITOR`, or anything `SinkURL` reads.
    public init(parsing text: String) throws(OptionParseError) {
        if text == "window" {
            self = .window(nil)
        } else if text.hasPrefix("window:") {
            self = .window(try MonitorSelector(parsing: String(text.dropFirst("window:".count))))
        } else {
            self = .stream(try SinkURL(parsing: text))
        }
    }

    public var description: String {
        switch self {
        case .stream(let url): url.description
        case .window(let monitor): "window" + (monitor.map { ":\($0)" } ?? "")
        }
    }

    public var sinkURL: SinkURL? {
        if case .stream(let url) = self { return url }
        return nil
    }

    /// The monitor asked for, wrapped (`.some(nil)` is a window on the default monitor).
    public var windowMonitor: MonitorSelector?? {
        if case .window(let monitor) = self { return .some(monitor) }
        return nil
    }
}
