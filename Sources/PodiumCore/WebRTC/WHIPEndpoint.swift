public import Foundation

/// A WHIP endpoint (RFC 9725) as `--to` or `podium whip-check` names it:
/// `whip+https://host/path` (or `whip+http`), with `?token=` sent as a Bearer token.
public struct WHIPEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// Where the offer is POSTed: the URL without `whip+` and without the token.
    public var url: URL
    /// The Bearer token; never shown.
    public var token: String?

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

    /// The endpoint with its secrets masked (the last level of the path, where some servers put a
    /// stream key, and the token).
    public var description: String {
        SinkURL.redacted("whip+" + url.absoluteString + (token == nil ? "" : "?token=x"))
    }
}
