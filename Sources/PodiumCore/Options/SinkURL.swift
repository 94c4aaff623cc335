/// Where `--to` sends the stream, read from the text the user gave.
public enum SinkURL: Hashable, Sendable, CustomStringConvertible {
    /// A file; the container follows from its extension.
    case file(path: String, container: Container)
    /// MPEG-TS datagrams to `host:port`, a unicast address or a multicast group.
    case udp(host: String, port: Int, options: DatagramOptions = .init())
    /// MPEG-TS over TCP to the peer that listens at `host:port`; `retries`: connect again, with
    /// backoff, while it is not there or after it went away (`?retry=off` gives up at once).
    case tcp(host: String, port: Int, retries: Bool = true)
    /// MPEG-TS over TCP to every client that connects to `host:port`, up to `maxClients` at once.
    case tcpListen(host: String, port: Int, maxClients: Int)

    /// What `udp://` takes after `?`.
    public struct DatagramOptions: Hashable, Sendable {
        /// Hops a multicast datagram may take (`?ttl=`, 1 to 255); the system's default when `nil`.
        public var ttl: Int?
        /// Bytes of MPEG-TS in each datagram (`?pkt_size=`, whole 188-byte TS packets).
        public var packetSize: Int

        /// Seven TS packets: the usual size, which fits any Ethernet MTU.
        public static let defaultPacketSize = 1316

        public init(ttl: Int? = nil, packetSize: Int = defaultPacketSize) {
            self.ttl = ttl
            self.packetSize = packetSize
        }
    }

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

    /// Reads `out.mkv`, `out.mp4`, `out.ts`, `out.flv`, `udp://host:port[?ttl=N&pkt_size=N]`,
    /// `tcp://host:port[?retry=off]` or `tcp://host:port?listen[&max=N]`.
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
            var options = DatagramOptions()
            for (key, value) in try Self.fields(query, scheme: "udp", keys: "?ttl=N, ?pkt_size=N") {
                switch key {
                case "ttl":
                    guard Self.isMulticast(host) else {
                        throw OptionParseError(
                            "?ttl= sets the hops of multicast datagrams; \(host) is not a multicast group")
                    }
                    options.ttl = try Self.number(value, key: key, in: 1...255, meaning: "hops")
                case "pkt_size":
                    let size = try Self.number(value, key: key, in: 188...65424, meaning: "bytes a datagram")
                    guard size % 188 == 0 else {
                        throw OptionParseError(
                            "?pkt_size=\(size): a datagram carries whole 188-byte TS packets (1316 = 7 × 188)")
                    }
                    options.packetSize = size
                default:
                    throw OptionParseError("unknown option ?\(key) for udp://; it takes ?ttl=N and ?pkt_size=N")
                }
            }
            self = .udp(host: host, port: port, options: options)
        case "tcp":
            let (host, port, query) = try Self.hostPort(rest)
            var listen = false
            var maxClients: Int?
            var retries = true
            for (key, value) in try Self.fields(query, scheme: "tcp", keys: "?listen, ?max=N, ?retry=off") {
                switch (key, value) {
                case ("listen", ""):
                    listen = true
                case ("max", _):
                    maxClients = try Self.number(value, key: key, in: 1...1000, meaning: "clients at once")
                case ("retry", "off"), ("retry", "on"):
                    retries = value == "on"
                case ("retry", _):
                    throw OptionParseError("?retry=\(value): say ?retry=off to give up when the peer is not there")
                default:
                    throw OptionParseError(
                        "unknown option ?\(key) for tcp://; it takes ?listen, ?listen&max=N or ?retry=off")
                }
            }
            if listen {
                guard retries else {
                    throw OptionParseError("?retry= is for tcp:// outputs that connect; ?listen waits for clients")
                }
                self = .tcpListen(host: host, port: port, maxClients: maxClients ?? Self.defaultMaxClients)
            } else {
                guard maxClients == nil else { throw OptionParseError("?max= goes with ?listen") }
                self = .tcp(host: host, port: port, retries: retries)
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
        case .udp(let host, let port, let options):
            "udp://\(Self.bracketed(host)):\(port)" + Self.query([
                options.ttl.map { "ttl=\($0)" },
                options.packetSize == DatagramOptions.defaultPacketSize ? nil : "pkt_size=\(options.packetSize)",
            ])
        case .tcp(let host, let port, let retries):
            "tcp://\(Self.bracketed(host)):\(port)" + (retries ? "" : "?retry=off")
        case .tcpListen(let host, let port, let maxClients):
            "tcp://\(Self.bracketed(host)):\(port)?listen"
                + (maxClients == Self.defaultMaxClients ? "" : "&max=\(maxClients)")
        }
    }

    /// The host a network output sends to or listens on.
    public var host: String? {
        switch self {
        case .file: nil
        case .udp(let host, _, _), .tcp(let host, _, _), .tcpListen(let host, _, _): host
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

    /// The `key=value` fields after `?`, in order; a key without `=` has the value "".
    /// - Throws: when a key comes twice or a field has no key.
    private static func fields(_ query: String?, scheme: String, keys: String) throws(OptionParseError)
        -> [(key: String, value: String)] {
        guard let query else { return [] }
        var seen: Set<String> = []
        var result: [(key: String, value: String)] = []
        for field in query.split(separator: "&", omittingEmptySubsequences: false) {
            let pair = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(pair[0])
            guard !key.isEmpty else {
                throw OptionParseError("an empty option after ? or &; \(scheme):// takes \(keys)")
            }
            guard seen.insert(key).inserted else { throw OptionParseError("?\(key) is given twice") }
            result.append((key, pair.count == 2 ? String(pair[1]) : ""))
        }
        return result
    }

    private static func number(_ value: String, key: String, in range: ClosedRange<Int>, meaning: String)
        throws(OptionParseError) -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw OptionParseError("?\(key)=\(value): expected \(range.lowerBound) to \(range.upperBound) \(meaning)")
        }
        return number
    }

    /// `224.0.0.0/4` or `ff00::/8`: an address that names a group of receivers.
    public static func isMulticast(_ host: String) -> Bool {
        if host.lowercased().hasPrefix("ff") && host.contains(":") { return true }
        let parts = host.split(separator: ".")
        guard parts.count == 4, let first = UInt8(parts[0]), parts.allSatisfy({ UInt8($0) != nil }) else {
            return false
        }
        return (224...239).contains(first)
    }

    private static func query(_ fields: [String?]) -> String {
        let present = fields.compactMap { $0 }
        return present.isEmpty ? "" : "?" + present.joined(separator: "&")
    }

    private static func bracketed(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
}
