/// Where `--to` sends the stream, read from the text the user gave.
public enum SinkURL: Hashable, Sendable, CustomStringConvertible {
    /// A file; the container follows from its extension.
    case file(path: String, container: Container)
    /// MPEG-TS datagrams to `host:port`.
    case udp(host: String, port: Int)
    /// MPEG-TS over TCP to the peer that listens at `host:port`.
    case tcp(host: String, port: Int)
    /// MPEG-TS over TCP to every client that connects to `host:port`, up to `maxClients` at once.
    case tcpListen(host: String, port: Int, maxClients: Int)

    /// How many clients a listener serves at once unless `?max=` says otherwise.
    public static let defaultMaxClients = 16

    /// The file formats Podium writes, each named after libavformat's muxer.
    public enum Container: String, Hashable, Sendable, CaseIterable {
        case matroska, mp4, mpegts, flv

        /// The extensions that select each container.
        public static let byExtension: [String: Container] = ["mkv": .matroska, "mp4": .mp4, "ts": .mpegts, "flv": .flv]
        /// The libavformat muxer's short name.
        public var muxerName: String { rawValue }
    }

    /// Reads `out.mkv`, `out.mp4`, `out.ts`, `out.flv`, `udp://host:port`, `tcp://host:port` or
    /// `tcp://host:port?listen[&max=N]`.
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
            var listen = false
            var maxClients: Int?
            for field in (query ?? "").split(separator: "&") {
                let pair = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                switch (pair[0], pair.count == 2 ? pair[1] : nil) {
                case ("listen", nil):
                    listen = true
                case ("max", let value?):
                    guard let number = Int(value), (1...1000).contains(number) else {
                        throw OptionParseError("?max=\(value): the most clients at once is a number from 1 to 1000")
                    }
                    maxClients = number
                default:
                    throw OptionParseError("unknown option ?\(field) for tcp://; it takes ?listen and ?listen&max=N")
                }
            }
            if listen {
                self = .tcpListen(host: host, port: port, maxClients: maxClients ?? Self.defaultMaxClients)
            } else {
                guard maxClients == nil else { throw OptionParseError("?max= goes with ?listen") }
                self = .tcp(host: host, port: port)
            }
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
        case .tcp(let host, let port): "tcp://\(Self.bracketed(host)):\(port)"
        case .tcpListen(let host, let port, let maxClients):
            "tcp://\(Self.bracketed(host)):\(port)?listen"
                + (maxClients == Self.defaultMaxClients ? "" : "&max=\(maxClients)")
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
