/// Where `--to` sends the picture: an encoded stream (a file or a URL), or a window on a monitor.
public enum Destination: Sendable, CustomStringConvertible {
    /// An encoded stream, and the encoding it asks for beyond the run's defaults.
    case stream(any OutputPlan, rendition: RenditionRequest = .init())
    /// `window` or `window:MONITOR`: the picture scaled to a fullscreen window, no encoder involved.
    case window(MonitorSelector?)
    /// `http://HOST:PORT` or `https://…`: the browser viewer's server, and the encoding it asks for.
    case viewer(ViewerOptions, rendition: RenditionRequest = .init())

    /// Reads `window`, `window:MONITOR`, `http(s)://HOST:PORT`, or an output one of `resolvers` reads.
    /// - Parameter resolvers: the kinds of output, asked in turn (the output catalog's).
    public init(parsing text: String, resolvers: [any OutputResolver]) throws(OptionParseError) {
        let lowered = text.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            let (output, rendition) = try RenditionRequest.split(text)
            let secure = lowered.hasPrefix("https://")
            let rest = output.dropFirst(secure ? "https://".count : "http://".count)
            self = .viewer(try ViewerOptions(parsing: rest, secure: secure), rendition: rendition)
        } else if text == "window" {
            self = .window(nil)
        } else if text.hasPrefix("window:") {
            self = .window(try MonitorSelector(parsing: String(text.dropFirst("window:".count))))
        } else {
            guard !text.isEmpty else { throw OptionParseError("expected a file or a URL") }
            let (output, rendition) = try RenditionRequest.split(text)
            for resolver in resolvers {
                if let plan = try resolver.resolve(output) {
                    self = .stream(plan, rendition: rendition)
                    return
                }
            }
            let forms = resolvers.flatMap(\.forms) + ["http(s):// for the browser viewer", "window"]
            let scheme = output.split(separator: "://", maxSplits: 1).first.map { $0.lowercased() } ?? output
            throw OptionParseError("unknown scheme \(scheme)://; use " + forms.joined(separator: ", "))
        }
    }

    public var description: String {
        switch self {
        case .stream(let output, let rendition): Self.appending(rendition, to: output.description)
        case .viewer(let options, let rendition): Self.appending(rendition, to: options.description)
        case .window(let monitor): "window" + (monitor.map { ":\($0)" } ?? "")
        }
    }

    private static func appending(_ rendition: RenditionRequest, to output: String) -> String {
        guard !rendition.isEmpty else { return output }
        return output + (output.contains("?") ? "&" : "?") + rendition.fields.joined(separator: "&")
    }

    /// The encoded stream's output, for all but a window and the viewer.
    public var output: (any OutputPlan)? {
        if case .stream(let output, _) = self { return output }
        return nil
    }

    /// The encoding a stream or the viewer asks for (empty for a window).
    public var rendition: RenditionRequest {
        switch self {
        case .stream(_, let rendition), .viewer(_, let rendition): rendition
        case .window: RenditionRequest()
        }
    }

    public var viewer: ViewerOptions? {
        if case .viewer(let options, _) = self { return options }
        return nil
    }

    /// The monitor asked for, wrapped (`.some(nil)` is a window on the default monitor).
    public var windowMonitor: MonitorSelector?? {
        if case .window(let monitor) = self { return .some(monitor) }
        return nil
    }
}
