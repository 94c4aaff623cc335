public import PodiumCore
public import Foundation

/// A WHIP endpoint (RFC 9725) as `--to` or `podium whip-check` names it:
/// `whip+https://host/path` (or `whip+http`), with `?token=` sent as a Bearer token.
public struct WHIPEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Where the offer is POSTed: the URL without `whip+` and without the token.
    public var url: URL
    /// The Bearer token; never shown.
    public var token: String?
    /// STUN and TURN servers (`--ice-server`), in GStreamer's forms (`stun://host:port`,
    /// `turn://user:pass@host:port`); a TURN server's password is never shown.
    public var iceServers: [String] = []

    /// The server's host.
    public var host: String? { url.host }

    /// Reads `whip+http(s)://host[:port]/path[?token=T]`.
    public init(parsing text: String) throws(OptionParseError) {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("whip+http://") || lowered.hasPrefix("whip+https://") else {
            throw OptionParseError("expected whip+https://host/path (or whip+http://), such as "
                                   + "whip+https://sfu.example.com/whip/talk?token=T")
        }
        guard var parts = URLComponents(string: String(text.dropFirst("whip+".count))), let host = parts.host,
              !host.isEmpty else {
            throw OptionParseError("not a URL with a host")
        }
        var token: String?
        var others: [URLQueryItem] = []
        for item in parts.queryItems ?? [] {
            if item.name.lowercased() == "token" {
                guard let value = item.value, !value.isEmpty else { throw OptionParseError("?token= is empty") }
                token = value
            } else {
                others.append(item)
            }
        }
        parts.queryItems = others.isEmpty ? nil : others
        guard let url = parts.url else { throw OptionParseError("not a URL") }
        self.url = url
        self.token = token
    }

    /// Reads an ICE server as `--ice-server` takes it: `stun:host[:port]`, `turn:user:pass@host[:port]`,
    /// `turns:…` (RFC 7064 and 7065's forms), or GStreamer's (`stun://host:port`).
    /// - Returns: GStreamer's form, the port 3478 (5349 for `turns`) when none is given.
    public static func iceServer(parsing text: String) throws(OptionParseError) -> String {
        let schemes = ["stun": 3478, "turn": 3478, "turns": 5349]
        guard let colon = text.firstIndex(of: ":"), let port = schemes[text[..<colon].lowercased()] else {
            throw OptionParseError("expected stun:host[:port] or turn:user:pass@host[:port]")
        }
        let scheme = text[..<colon].lowercased()
        var rest = text[text.index(after: colon)...]
        if rest.hasPrefix("//") { rest = rest.dropFirst(2) }
        // RFC 7065's `?transport=udp` is GStreamer's too; anything else is not.
        let query = rest.firstIndex(of: "?").map { rest[$0...] } ?? ""
        rest = rest.prefix { $0 != "?" }
        let credentials = rest.lastIndex(of: "@").map { rest[..<$0] }
        let address = rest.lastIndex(of: "@").map { rest[rest.index(after: $0)...] } ?? rest
        if scheme == "stun" && credentials != nil { throw OptionParseError("a STUN server takes no user") }
        if scheme != "stun" && credentials?.contains(":") != true {
            throw OptionParseError("a TURN server needs a user and a password: \(scheme):user:pass@host[:port]")
        }
        let hasPort = address.hasSuffix("]") ? false : address.split(separator: ":").count == 2
        let host = hasPort ? address.prefix { $0 != ":" } : address
        guard !host.isEmpty, query.isEmpty || ["?transport=udp", "?transport=tcp"].contains(query.lowercased()) else {
            throw OptionParseError("expected stun:host[:port] or turn:user:pass@host[:port][?transport=udp|tcp]")
        }
        if hasPort, Int(address.split(separator: ":")[1]).map({ (1...65535).contains($0) }) != true {
            throw OptionParseError("the port must be 1 to 65535")
        }
        return "\(scheme)://" + (credentials.map { "\($0)@" } ?? "") + (hasPort ? "\(address)" : "\(host):\(port)")
            + query
    }

    /// The passwords of the TURN servers: never shown.
    public var secrets: [String] {
        [token].compactMap { $0 } + iceServers.compactMap { server in
            guard let at = server.lastIndex(of: "@"), let scheme = server.range(of: "://") else { return nil }
            let credentials = server[scheme.upperBound..<at]
            return credentials.firstIndex(of: ":").map { String(credentials[credentials.index(after: $0)...]) }
        }
    }

    /// The endpoint with its secrets masked (the last level of the path, where some servers put a
    /// stream key, and the token).
    public var description: String {
        URLText.redacted("whip+" + url.absoluteString + (token == nil ? "" : "?token=x"))
    }
}
