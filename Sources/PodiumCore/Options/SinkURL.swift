/// Where `--to` sends the stream, read from the text the user gave.
public enum SinkURL: Hashable, Sendable, CustomStringConvertible {
    /// A file; the container follows from its extension.
    case file(path: String, container: Container)
    /// MPEG-TS datagrams to `host:port`.
    case udp(host: String, port: Int)
    /// MPEG-TS over TCP: connect to `host:port`, or with `listen` wait there for one client.
    case tcp(host: String, port: Int, listen: Bool)

    /// The file formats Podium writes, each named after libavformat's muxer.
    public enum Container: String, Hashable, Sendable, CaseIterable {
        case matroska, mp4, mpegts, flv

        /// The extensions that select each container.
        public static let byExtension: [String: Container] = ["mkv": .matroska, "mp4": .mp4, "ts": .mpegts, "flv": .flv]
        /// The libavformat muxer's short name.
        public var muxerName: String { rawValue }
    }

    /// Reads `out.mkv`, `out.mp4`, `out.ts`, `out.flv`, `udp://host:port`, `tcp://host:port` or `tcp://host:port?listen`.
    public init(parsing text: String) throws(OptionParseError) {
        guard !text.isEmpty else { throw OptionParseError("expected a file or a URL") }
        let schemeAndRest = text.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        guard schemeAndRest.count == 2 else {
            self = try Self.file(text)
            return
        }
        let scheme = schemeAndRest[0].lowercased()
        let rest = schemeAndRest[1]
        switch scheme {
        case "udp":
            let (host, port, query) = try Self.hostPort(rest)
            guard query == nil else { throw OptionParseError("udp:// takes no options") }
            self = .udp(host: host, port: port)
        case "tcp":
            let (host, port, query) = try Self.hostPort(rest)
            guard query == nil || query == "listen" else { throw OptionParseError("the only tcp:// option is ?listen") }
            self = .tcp(host: host, port: port, listen: query == "listen")
        case "file":
            self = try Self.file(String(rest))
        case "srt", "rtmp", "rtmps", "http", "https", "rtp", "rtsp":
            throw OptionParseError("\(scheme):// is not supported yet; use a file, udp:// or tcp://")
        default:
            throw OptionParseError("unknown scheme \(scheme)://; use a file, udp:// or tcp://")
        }
    }

    public var description: String {
        switch self {
        case .file(let path, _): path
        case .udp(let host, let port): "udp://\(Self.bracketed(host)):\(port)"
        case .tcp(let host, let port, let listen): "tcp://\(Self.bracketed(host)):\(port)" + (listen ? "?listen" : "")
        }
    }

    /// The file's path, for a file sink.
    public var filePath: String? {
        if case .file(let path, _) = self { return path }
        return nil
    }

    private static func file(_ path: String) throws(OptionParseError) -> SinkURL {
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else {
            throw OptionParseError("a file needs an extension: .mkv, .mp4, .ts or .flv")
        }
        let ext = name[name.index(after: dot)...].lowercased()
        guard let container = Container.byExtension[ext] else {
            throw OptionParseError("unknown extension .\(ext); use .mkv, .mp4, .ts or .flv")
        }
        return .file(path: path, container: container)
    }

    private static func hostPort(_ text: Substring) throws(OptionParseError) -> (String, Int, String?) {
        var authority = text
        var query: String?
        if let mark = text.firstIndex(of: "?") {
            authority = text[..<mark]
            query = String(text[text.index(after: mark)...])
        }
        let host: Substring
        let portText: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]"), authority[authority.index(after: close)...].hasPrefix(":") else {
                throw OptionParseError("expected [IPv6]:PORT")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            portText = authority[authority.index(close, offsetBy: 2)...]
        } else {
            guard let colon = authority.lastIndex(of: ":") else { throw OptionParseError("expected HOST:PORT") }
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty, !host.contains("/"), !host.contains("@") else { throw OptionParseError("expected HOST:PORT") }
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw OptionParseError("the port must be a number from 1 to 65535")
        }
        return (String(host), port, query)
    }

    private static func bracketed(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
}
