/// Where `--to` sends the picture: an encoded stream (a file or a URL), or a window on a monitor.
public enum Destination: Hashable, Sendable, CustomStringConvertible {
    /// An encoded stream, and the encoding it asks for beyond the run's defaults.
    case stream(SinkURL, rendition: RenditionRequest = .init())
    /// `window` or `window:MONITOR`: the picture scaled to a fullscreen window, no encoder involved.
    case window(MonitorSelector?)

    /// Reads `window`, `window:MONITOR`, or anything `SinkURL` reads.
    public init(parsing text: String) throws(OptionParseError) {
        if text == "window" {
            self = .window(nil)
        } else if text.hasPrefix("window:") {
            self = .window(try MonitorSelector(parsing: String(text.dropFirst("window:".count))))
        } else {
            let (output, rendition) = try RenditionRequest.split(text)
            self = .stream(try SinkURL(parsing: output), rendition: rendition)
        }
    }

    public var description: String {
        switch self {
        case .stream(let url, let rendition): url.description
            + (rendition.isEmpty ? "" : (url.description.contains("?") ? "&" : "?")
                + rendition.fields.joined(separator: "&"))
        case .window(let monitor): "window" + (monitor.map { ":\($0)" } ?? "")
        }
    }

    public var sinkURL: SinkURL? {
        if case .stream(let url, _) = self { return url }
        return nil
    }

    /// The encoding a stream asks for (empty for a window).
    public var rendition: RenditionRequest {
        if case .stream(_, let rendition) = self { return rendition }
        return RenditionRequest()
    }

    /// The monitor asked for, wrapped (`.some(nil)` is a window on the default monitor).
    public var windowMonitor: MonitorSelector?? {
        if case .window(let monitor) = self { return .some(monitor) }
        return nil
    }
}
