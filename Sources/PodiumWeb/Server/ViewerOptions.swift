public import PodiumCore

/// The browser viewer, `--to http://[HOST]:PORT[?…]` or `https://…`: where its server listens,
/// who may watch, and the renditions it offers.
public struct ViewerOptions: Hashable, Sendable, CustomStringConvertible {
    /// Who may open the page and the stream.
    public enum Access: Hashable, Sendable {
        /// A random 128-bit token, made as the run starts, is part of the printed link.
        case randomToken
        /// `?token=WORD`: the user's own.
        case token(String)
        /// `?token=off`: anyone who reaches the port; loopback only.
        case open
    }

    /// `https://`: TLS, with `certificate` and `privateKey` or a self-signed certificate.
    public var secure: Bool
    /// The address it listens on; loopback when the URL leaves it out (`http://:8080`).
    public var address: String
    public var port: Int
    public var access = Access.randomToken
    /// `?max-viewers=`: viewers at once; more are turned away.
    public var maxViewers = Self.defaultMaxViewers
    /// `?cert=FILE&key=FILE`: PEM files for HTTPS.
    public var certificate: String?
    public var privateKey: String?
    /// `?ladder=`: the renditions offered; `nil` offers the output's one encoding.
    public var ladder: [LadderRung]?
    /// `?name=`: names the room reaches this machine by (a LAN's DNS name), besides its addresses
    /// and host name; a request that names any other host is refused.
    public var names: [String] = []

    public static let defaultMaxViewers = 32

    static let keys = "?token=WORD|off, ?max-viewers=N, ?ladder=1080p,720p,360p, ?name=HOST[,HOST], "
        + "?cert=FILE&key=FILE (https)"

    /// Reads what follows `http://` or `https://`.
    public init(parsing rest: Substring, secure: Bool) throws(OptionParseError) {
        self.secure = secure
        let scheme = secure ? "https" : "http"
        let (location, query) = URLText.splitQuery(rest)
        var authority = location
        if let slash = location.firstIndex(of: "/") {
            guard location[slash...] == "/" else {
                throw OptionParseError("the viewer is served at /; give \(scheme)://HOST:PORT without a path")
            }
            authority = location[..<slash]
        }
        let expected = "expected \(scheme)://HOST:PORT or \(scheme)://:PORT (loopback)"
        if authority.hasPrefix(":") {
            address = "127.0.0.1"
            guard let port = Int(authority.dropFirst()), (1...65535).contains(port) else {
                throw OptionParseError("\(expected), the port a number from 1 to 65535")
            }
            self.port = port
        } else {
            let parsed: (String, Int?)
            do {
                parsed = try URLText.hostAndPort(authority)
            } catch {
                throw OptionParseError("\(expected): \(error.reason)")
            }
            guard let port = parsed.1 else { throw OptionParseError(expected) }
            address = parsed.0
            self.port = port
        }
        for (key, value) in try URLText.fields(query, scheme: scheme, keys: Self.keys) {
            switch key {
            case "token":
                access = try Self.access(value)
            case "max-viewers":
                maxViewers = try URLText.number(value, key: key, in: 1...1000, meaning: "viewers at once")
            case "cert", "key":
                guard secure else { throw OptionParseError("?\(key)= is for https://; http:// has no certificate") }
                guard !value.isEmpty else { throw OptionParseError("?\(key)= needs a PEM file's path") }
                if key == "cert" { certificate = value } else { privateKey = value }
            case "ladder":
                ladder = try LadderRung.list(parsing: value)
            case "name":
                names = try Self.hostNames(value)
            default:
                throw OptionParseError("unknown option ?\(key) for \(scheme)://; it takes \(Self.keys)")
            }
        }
        if access == .open && !isLoopback {
            throw OptionParseError("?token=off lets anyone who reaches \(address) watch; it is allowed only on "
                                   + "loopback (\(scheme)://:\(port))")
        }
        if (certificate == nil) != (privateKey == nil) {
            throw OptionParseError(certificate == nil ? "?key= needs ?cert=, the certificate it belongs to"
                                                      : "?cert= needs ?key=, the certificate's private key")
        }
    }

    private static func access(_ value: String) throws(OptionParseError) -> Access {
        if value == "off" { return .open }
        // It travels in the link as it is: no character that would need escaping there.
        let allowed = value.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.~".unicodeScalars.contains($0))
        }
        guard value.count >= 16, value.count <= 128, allowed else {
            throw OptionParseError("?token= must be 16 to 128 letters, digits, '-', '_', '.' or '~' (or off)")
        }
        return .token(value)
    }

    private static func hostNames(_ value: String) throws(OptionParseError) -> [String] {
        let names = value.split(separator: ",").map { $0.lowercased() }
        let isName = { (name: String) in
            name.count <= 253 && name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
                (1...63).contains(label.count) && label.first != "-" && label.last != "-"
                    && label.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic
                        || ("0"..."9").contains($0) || $0 == "-") }
            }
        }
        guard !names.isEmpty else {
            throw OptionParseError("?name= needs host names, comma-separated: ?name=podium.lan")
        }
        if let wrong = names.first(where: { !isName($0) }) {
            throw OptionParseError("?name=\(wrong) is not a host name (letters, digits, '-', between dots)")
        }
        return names
    }

    /// Whether only this machine can reach it.
    public var isLoopback: Bool {
        address == "localhost" || address == "::1" || address.hasPrefix("127.")
    }

    /// The output as shown: never its token.
    public var description: String {
        "\(secure ? "https" : "http")://\(URLText.authority(address, port))" + URLText.query([
            access == .open ? "token=off" : nil,
            maxViewers == Self.defaultMaxViewers ? nil : "max-viewers=\(maxViewers)",
            ladder.map { "ladder=" + $0.map(\.description).joined(separator: ",") },
            names.isEmpty ? nil : "name=" + names.joined(separator: ","),
        ])
    }

    /// The token the user chose, kept out of every message.
    public var secrets: [String] {
        if case .token(let token) = access { return [token] }
        return []
    }
}
