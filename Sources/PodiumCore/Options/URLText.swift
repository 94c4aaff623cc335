import Foundation

/// The pieces every output's text is read and shown with: `HOST:PORT`, the fields after `?`, and
/// the masks over its secrets. Each output kind reads the rest of its own text.
public enum URLText {
    /// What stands for a secret wherever Podium shows an output.
    public static let mask = "••••"

    /// `text`, an output as the user typed it (it need not be valid, nor its scheme known), with
    /// its secrets masked: a password before `@`; the values of `?passphrase=`, `?streamid=`,
    /// `?token=` and `?key=`; and, for RTMP and for a scheme Podium does not know (a typo such as
    /// `rmtp://`), the last level of the path, where a stream key goes, and all after it. For
    /// messages that quote what was typed.
    public static func redacted(_ text: String) -> String {
        // A TURN server as RFC 7065 writes it (`turn:user:pass@host`), with no `//`.
        if let colon = text.firstIndex(of: ":"), ["turn", "turns"].contains(text[..<colon].lowercased()),
           !text[colon...].hasPrefix("://") {
            return redacted("\(text[..<colon])://\(text[text.index(after: colon)...])")
        }
        guard let schemeEnd = text.range(of: "://") else { return text }
        let (typed, query) = splitQuery(text[schemeEnd.upperBound...])
        var location = String(typed)
        // user:password@host
        let authority = location.prefix { $0 != "/" }
        if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
            location = "\(location[...colon])\(mask)\(location[at...])"
        }
        let scheme = text[..<schemeEnd.lowerBound]
        let shown = "\(scheme)://\(location)"
        let keyed = ["udp", "tcp", "srt", "rtsp", "rtsps", "http", "https"].contains(scheme.lowercased())
        if !keyed, let slash = location.firstIndex(of: "/"),
           let last = location[location.index(after: slash)...].lastIndex(of: "/") {
            return "\(scheme)://\(location[...last])\(mask)"
        }
        guard let query else { return shown }
        let secretKeys: Set = ["passphrase", "streamid", "token", "key", "password"]
        let fields = query.split(separator: "&", omittingEmptySubsequences: false).map { field in
            let key = field.split(separator: "=", maxSplits: 1).first.map { $0.lowercased() } ?? ""
            return secretKeys.contains(key) ? "\(key)=\(mask)" : String(field)
        }
        return shown + "?" + fields.joined(separator: "&")
    }

    /// `HOST:PORT[?query]`: the host, the port and what follows `?`.
    public static func hostPort(_ text: Substring) throws(OptionParseError) -> (String, Int, String?) {
        let (authority, query) = splitQuery(text)
        let (host, port) = try hostAndPort(authority)
        guard let port else { throw OptionParseError("expected HOST:PORT") }
        return (host, port, query)
    }

    /// The text before `?`, and the text after it if there is a `?`.
    public static func splitQuery(_ text: Substring) -> (Substring, String?) {
        guard let mark = text.firstIndex(of: "?") else { return (text, nil) }
        return (text[..<mark], String(text[text.index(after: mark)...]))
    }

    /// `HOST`, `HOST:PORT`, `[IPv6]` or `[IPv6]:PORT`.
    public static func hostAndPort(_ authority: Substring) throws(OptionParseError) -> (String, Int?) {
        let host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw OptionParseError("expected [IPv6]:PORT") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw OptionParseError("expected [IPv6]:PORT") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty, !host.contains("/"), !host.contains("@"), !host.contains(":") || authority.hasPrefix("[")
        else { throw OptionParseError("expected HOST:PORT") }
        guard let portText else { return (String(host), nil) }
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw OptionParseError("the port must be a number from 1 to 65535")
        }
        return (String(host), port)
    }

    /// The `key=value` fields after `?`, in order; a key without `=` has the value "".
    /// - Throws: when a key comes twice or a field has no key.
    public static func fields(_ query: String?, scheme: String, keys: String) throws(OptionParseError)
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

    public static func number(_ value: String, key: String, in range: ClosedRange<Int>, meaning: String)
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

    public static func query(_ fields: [String?]) -> String {
        let present = fields.compactMap { $0 }
        return present.isEmpty ? "" : "?" + present.joined(separator: "&")
    }

    public static func bracketed(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

    /// `host`, or `host:port` when a port is given; IPv6 addresses in brackets.
    public static func authority(_ host: String, _ port: Int?) -> String {
        bracketed(host) + (port.map { ":\($0)" } ?? "")
    }
    /// `?retry=off` (or `on`, the default) of an output that connects.
    public static func retries(_ value: String) throws(OptionParseError) -> Bool {
        guard value == "off" || value == "on" else {
            throw OptionParseError("?retry=\(value): say ?retry=off to give up when the peer is not there")
        }
        return value == "on"
    }

    /// A field's value with `%XX` escapes decoded, so `#`, `&` and `=` can be given.
    public static func decoded(_ value: String, key: String) throws(OptionParseError) -> String {
        guard let decoded = value.removingPercentEncoding else {
            throw OptionParseError("?\(key)=: a % must start an escape such as %23 or %26")
        }
        return decoded
    }
}
