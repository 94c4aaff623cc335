public import PodiumCore

/// An output that libavformat's muxers write: a file, a push over a network protocol (UDP, TCP,
/// SRT, RTMP, RTSP), a listener's clients, or an HLS folder. Each kind's route (`OutputRoute`)
/// says how it is reached; `MuxerOutput` (or `ClientListener`) writes it on its own thread.
public enum MuxerTarget: Hashable, Sendable, CustomStringConvertible {
    /// A file; the container follows from its extension. With `split`, a file every so often.
    case file(path: String, container: Container, split: FileSplit?)
    /// MPEG-TS datagrams to `host:port`, a unicast address or a multicast group.
    case udp(host: String, port: Int, options: DatagramOptions = .init())
    /// MPEG-TS over TCP to the peer that listens at `host:port`; `retries`: connect again, with
    /// backoff, while it is not there or after it went away (`?retry=off` gives up at once).
    case tcp(host: String, port: Int, retries: Bool = true)
    /// MPEG-TS over TCP to every client that connects to `host:port`, up to `maxClients` at once.
    case tcpListen(host: String, port: Int, maxClients: Int)
    /// MPEG-TS over SRT: a call to a listener at `host:port`, or a listener there (`?mode=listener`).
    case srt(host: String, port: Int, options: SRTOptions)
    /// FLV over RTMP or RTMPS, published to a media server's application under a stream key.
    case rtmp(RTMPTarget)
    /// RTSP push (ANNOUNCE, then RECORD) of `path` on the server at `host:port`.
    case rtsp(host: String, port: Int?, path: String, options: RTSPOptions)
    /// HTTP Live Streaming written to a folder: a master playlist at `path`, and a media playlist
    /// with its segments for each variant of the ladder beside it.
    case hls(path: String, options: HLSOptions)

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

    /// The formats Podium writes, each named after libavformat's muxer.
    public enum Container: String, Hashable, Sendable, CaseIterable {
        case matroska, mp4, mpegts, flv
        /// RTP sessions that libavformat's RTSP muxer sets up with the server itself.
        case rtsp
        /// An HLS variant: a media playlist and its segments.
        case hls

        /// The extensions that select each container.
        public static let byExtension: [String: Container] = ["mkv": .matroska, "mp4": .mp4, "ts": .mpegts, "flv": .flv]
        /// The libavformat muxer's short name.
        public var muxerName: String { rawValue }
    }

    /// Reads `out.mkv`, `out.mp4`, `out.ts`, `out.flv`, `udp://host:port[?ttl=N&pkt_size=N]`,
    /// `tcp://host:port[?retry=off]`, `tcp://host:port?listen[&max=N]`, `srt://host:port[?…]`,
    /// `rtmp[s]://host[:port]/app/key` or `rtsp://host[:port]/path[?…]`.
    /// - Returns: `nil` for a scheme of another kind of output.
    public init?(parsing text: String) throws(OptionParseError) {
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
            let (host, port, query) = try URLText.hostPort(rest)
            var options = DatagramOptions()
            for (key, value) in try URLText.fields(query, scheme: "udp", keys: "?ttl=N, ?pkt_size=N") {
                switch key {
                case "ttl":
                    guard URLText.isMulticast(host) else {
                        throw OptionParseError(
                            "?ttl= sets the hops of multicast datagrams; \(host) is not a multicast group")
                    }
                    options.ttl = try URLText.number(value, key: key, in: 1...255, meaning: "hops")
                case "pkt_size":
                    let size = try URLText.number(value, key: key, in: 188...65424, meaning: "bytes a datagram")
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
            let (host, port, query) = try URLText.hostPort(rest)
            var listen = false
            var maxClients: Int?
            var retries = true
            for (key, value) in try URLText.fields(query, scheme: "tcp", keys: "?listen, ?max=N, ?retry=off") {
                switch (key, value) {
                case ("listen", ""):
                    listen = true
                case ("max", _):
                    maxClients = try URLText.number(value, key: key, in: 1...1000, meaning: "clients at once")
                case ("retry", _):
                    retries = try URLText.retries(value)
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
        case "srt":
            self = try Self.srt(rest)
        case "rtmp", "rtmps":
            self = .rtmp(try RTMPTarget(parsing: rest, secure: scheme == "rtmps"))
        case "rtsp":
            self = try Self.rtsp(rest)
        default:
            return nil
        }
    }

    /// The output as Podium names it in messages and statistics, its secrets masked (`••••`).
    public var description: String {
        switch self {
        case .file(let path, _, let split): path + (split.map { "?split=\($0)" } ?? "")
        case .hls(let path, let options): path + URLText.query(options.describedFields)
        case .udp(let host, let port, let options):
            "udp://\(URLText.bracketed(host)):\(port)" + URLText.query([
                options.ttl.map { "ttl=\($0)" },
                options.packetSize == DatagramOptions.defaultPacketSize ? nil : "pkt_size=\(options.packetSize)",
            ])
        case .tcp(let host, let port, let retries):
            "tcp://\(URLText.bracketed(host)):\(port)" + (retries ? "" : "?retry=off")
        case .tcpListen(let host, let port, let maxClients):
            "tcp://\(URLText.bracketed(host)):\(port)?listen"
                + (maxClients == Self.defaultMaxClients ? "" : "&max=\(maxClients)")
        case .srt(let host, let port, let options):
            "srt://\(URLText.bracketed(host)):\(port)" + URLText.query(options.describedFields)
        case .rtmp(let target):
            target.description
        case .rtsp(let host, let port, let path, let options):
            "rtsp://\(URLText.authority(host, port))/\(path)" + URLText.query([
                options.transport == .tcp ? nil : "transport=\(options.transport)",
                options.retries ? nil : "retry=off",
            ])
        }
    }

    /// Stream keys, passphrases and stream ids in this output: never shown, never logged.
    public var secrets: [String] {
        switch self {
        case .file, .hls, .udp, .tcp, .tcpListen, .rtsp: []
        case .srt(_, _, let options): [options.passphrase, options.streamID].compactMap { $0 }
        case .rtmp(let target): [target.key]
        }
    }

    /// Whether it connects to a server again after a fault (`?retry=off` says no).
    public var retries: Bool {
        switch self {
        case .file, .hls, .udp, .tcpListen: false
        case .tcp(_, _, let retries): retries
        case .srt(_, _, let options): options.retries
        case .rtmp(let target): target.retries
        case .rtsp(_, _, _, let options): options.retries
        }
    }

    /// The host a network output sends to or listens on.
    public var host: String? {
        switch self {
        case .file, .hls: nil
        case .udp(let host, _, _), .tcp(let host, _, _), .tcpListen(let host, _, _), .srt(let host, _, _),
             .rtsp(let host, _, _, _): host
        case .rtmp(let target): target.host
        }
    }

    /// The file's path, for a file sink.
    public var filePath: String? {
        if case .file(let path, _, _) = self { return path }
        return nil
    }

    /// A recording at `path` (`.mkv`, `.mp4`, `.ts` or `.flv`); `nil` for any other name.
    public init?(recording path: String) {
        guard !path.contains("?"), let target = try? Self.file(path), case .file = target else { return nil }
        self = target
    }

    private static func file(_ text: String) throws(OptionParseError) -> MuxerTarget {
        let (pathText, query) = URLText.splitQuery(Substring(text))
        let path = String(pathText)
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else {
            throw OptionParseError("a file needs an extension: .mkv, .mp4, .ts, .flv or .m3u8")
        }
        let ext = name[name.index(after: dot)...].lowercased()
        if ext == "m3u8" {
            // libavformat's HLS muxer reads `%d` and `%v` in its names as patterns.
            guard !path.contains("%") else { throw OptionParseError("an HLS playlist's path may not contain %") }
            return .hls(path: path, options: try HLSOptions(query: query))
        }
        guard let container = Container.byExtension[ext] else {
            throw OptionParseError("unknown extension .\(ext); use .mkv, .mp4, .ts, .flv or .m3u8")
        }
        var split: FileSplit?
        for (key, value) in try URLText.fields(query, scheme: "file", keys: "?split=") {
            guard key == "split" else {
                throw OptionParseError("unknown option ?\(key) for a file; files take ?split= and "
                                       + RenditionRequest.keys.sorted().map { "?\($0)=" }.joined(separator: ", "))
            }
            split = try FileSplit(parsing: value)
        }
        return .file(path: path, container: container, split: split)
    }
}
