import PodiumCore
import Foundation

// The outputs that push to a media server: SRT, RTMP(S) and RTSP. Their secrets (a stream key, a
// passphrase, a stream id that may carry a user and password) are kept apart from what is shown.

extension MuxerTarget {
    /// What `srt://` takes after `?`.
    public struct SRTOptions: Hashable, Sendable {
        /// Who starts the connection: Podium calls a listener (the default), waits for a caller
        /// (`listener`), or both sides call each other from the same port (`rendezvous`).
        public enum Mode: String, Hashable, Sendable { case caller, listener, rendezvous }

        public var mode: Mode = .caller
        /// The AES passphrase, 10 to 79 characters; secret.
        public var passphrase: String?
        /// The AES key length in bytes (16, 24 or 32); libsrt's default (16) when `nil`.
        public var keyLength: Int?
        /// How long the receiver may wait for a lost packet to be sent again, in milliseconds.
        public var latencyMilliseconds: Int?
        /// What the server is asked for (`publish:PATH`, `#!::r=PATH,m=publish`); secret, since it
        /// may carry a user name and password.
        public var streamID: String?
        /// Connect again after a fault (`?retry=off`: give up at once).
        public var retries = true

        public init() {}

        var describedFields: [String?] {
            [
                mode == .caller ? nil : "mode=\(mode)",
                passphrase.map { _ in "passphrase=\(URLText.mask)" },
                keyLength.map { "pbkeylen=\($0)" },
                latencyMilliseconds.map { "latency=\($0)" },
                streamID.map { _ in "streamid=\(URLText.mask)" },
                retries ? nil : "retry=off",
            ]
        }
    }

    /// `rtmp://HOST[:PORT]/APP/KEY` or `rtmps://…`: a media server's application and the stream key
    /// to publish under.
    public struct RTMPTarget: Hashable, Sendable, CustomStringConvertible {
        /// RTMP inside TLS.
        public var secure: Bool
        public var host: String
        /// The server's port; 1935 (RTMP) or 443 (RTMPS) when `nil`.
        public var port: Int?
        /// The application, which may have several levels (`live`, `app/instance`).
        public var app: String
        /// The stream key, with any query the server wants after it (`KEY?s_bl=1`); secret.
        public var key: String
        /// Connect again after a fault (`?retry=off`: give up at once).
        public var retries: Bool
        /// For RTMPS, a PEM file of the certificate authorities to trust instead of the system's
        /// (`?ca=FILE`): a server with a certificate of its own making.
        public var trustedCertificates: String?

        public init(secure: Bool = false, host: String, port: Int? = nil, app: String, key: String,
                    retries: Bool = true, trustedCertificates: String? = nil) {
            self.secure = secure
            self.host = host
            self.port = port
            self.app = app
            self.key = key
            self.retries = retries
            self.trustedCertificates = trustedCertificates
        }

        /// Reads what follows `rtmp://`: `HOST[:PORT]/APP/KEY`, then `?retry=off` and (RTMPS)
        /// `?ca=FILE`; any other field after `?` belongs to the stream key, as some servers' keys
        /// carry one.
        init(parsing text: Substring, secure: Bool) throws(OptionParseError) {
            let scheme = secure ? "rtmps" : "rtmp"
            let missingPath = OptionParseError(
                "\(scheme):// needs /APP/KEY after the host: the application and the stream key your server gives")
            let (location, query) = URLText.splitQuery(text)
            guard let slash = location.firstIndex(of: "/") else { throw missingPath }
            let (host, port) = try URLText.hostAndPort(location[..<slash])
            let levels = location[location.index(after: slash)...].split(separator: "/",
                                                                        omittingEmptySubsequences: false)
            guard levels.count >= 2, levels.allSatisfy({ !$0.isEmpty }) else { throw missingPath }
            var retries = true
            var trustedCertificates: String?
            var keyQuery: [Substring] = []
            for field in query.map({ $0.split(separator: "&", omittingEmptySubsequences: false) }) ?? [] {
                if field.hasPrefix("retry=") {
                    retries = try URLText.retries(String(field.dropFirst("retry=".count)))
                } else if field.hasPrefix("ca=") {
                    guard secure else { throw OptionParseError("?ca= names the authorities rtmps:// trusts") }
                    trustedCertificates = try URLText.decoded(String(field.dropFirst("ca=".count)), key: "ca")
                    guard trustedCertificates?.isEmpty == false else {
                        throw OptionParseError("?ca= needs a PEM file of certificate authorities")
                    }
                } else {
                    keyQuery.append(field)
                }
            }
            let key = String(levels[levels.count - 1]) + (keyQuery.isEmpty ? "" : "?" + keyQuery.joined(separator: "&"))
            self.init(secure: secure, host: host, port: port, app: levels.dropLast().joined(separator: "/"), key: key,
                      retries: retries, trustedCertificates: trustedCertificates)
        }

        public var scheme: String { secure ? "rtmps" : "rtmp" }

        /// The server's address and application, without the key: `rtmp://host:1935/live`.
        public var serverURL: String { "\(scheme)://\(URLText.authority(host, port))/\(app)" }

        public var description: String {
            "\(serverURL)/\(URLText.mask)"
                + URLText.query([retries ? nil : "retry=off", trustedCertificates.map { "ca=\($0)" }])
        }
    }

    /// What `rtsp://` takes after `?`.
    public struct RTSPOptions: Hashable, Sendable {
        /// How the RTP packets travel: interleaved in the RTSP connection, or as UDP datagrams.
        public enum Transport: String, Hashable, Sendable { case tcp, udp }

        public var transport: Transport
        /// Connect again after a fault (`?retry=off`: give up at once).
        public var retries: Bool

        public init(transport: Transport = .tcp, retries: Bool = true) {
            self.transport = transport
            self.retries = retries
        }
    }

    static func srt(_ text: Substring) throws(OptionParseError) -> MuxerTarget {
        let (host, port, query) = try URLText.hostPort(text)
        var options = SRTOptions()
        let keys = "?mode=, ?passphrase=, ?pbkeylen=, ?latency=, ?streamid= and ?retry=off"
        for (key, value) in try URLText.fields(query, scheme: "srt", keys: keys) {
            switch key {
            case "mode":
                guard let mode = SRTOptions.Mode(rawValue: value) else {
                    throw OptionParseError("?mode=\(value): expected caller, listener or rendezvous")
                }
                options.mode = mode
            case "passphrase":
                let passphrase = try URLText.decoded(value, key: key)
                // The count only: the passphrase itself is never shown.
                guard (10...79).contains(passphrase.count) else {
                    throw OptionParseError("?passphrase= has \(passphrase.count) characters; SRT takes 10 to 79")
                }
                options.passphrase = passphrase
            case "pbkeylen":
                guard let length = Int(value), [16, 24, 32].contains(length) else {
                    throw OptionParseError("?pbkeylen=\(value): expected 16, 24 or 32 (bytes of AES key)")
                }
                options.keyLength = length
            case "latency":
                options.latencyMilliseconds = try URLText.number(value, key: key, in: 0...60_000,
                                                                 meaning: "milliseconds")
            case "streamid":
                let streamID = try URLText.decoded(value, key: key)
                guard (1...512).contains(streamID.utf8.count) else {
                    throw OptionParseError("?streamid= takes 1 to 512 bytes")
                }
                options.streamID = streamID
            case "retry":
                options.retries = try URLText.retries(value)
            default:
                throw OptionParseError("unknown option ?\(key) for srt://; it takes \(keys)")
            }
        }
        if options.keyLength != nil && options.passphrase == nil {
            throw OptionParseError("?pbkeylen= sets the length of the key made from ?passphrase=; give one")
        }
        return .srt(host: host, port: port, options: options)
    }

    static func rtsp(_ text: Substring) throws(OptionParseError) -> MuxerTarget {
        let (location, query) = URLText.splitQuery(text)
        let missingPath = OptionParseError("rtsp:// needs a path after the host: rtsp://HOST[:PORT]/PATH")
        guard let slash = location.firstIndex(of: "/") else { throw missingPath }
        let (host, port) = try URLText.hostAndPort(location[..<slash])
        let path = location[location.index(after: slash)...]
        guard !path.isEmpty, !path.split(separator: "/", omittingEmptySubsequences: false).contains("") else {
            throw missingPath
        }
        var options = RTSPOptions()
        for (key, value) in try URLText.fields(query, scheme: "rtsp", keys: "?transport=tcp|udp and ?retry=off") {
            switch key {
            case "transport":
                guard let transport = RTSPOptions.Transport(rawValue: value) else {
                    throw OptionParseError("?transport=\(value): expected tcp or udp")
                }
                options.transport = transport
            case "retry":
                options.retries = try URLText.retries(value)
            default:
                throw OptionParseError("unknown option ?\(key) for rtsp://; it takes ?transport=tcp|udp and ?retry=off")
            }
        }
        return .rtsp(host: host, port: port, path: String(path), options: options)
    }
}
