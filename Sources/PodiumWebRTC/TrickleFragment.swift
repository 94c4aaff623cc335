/// Candidates gathered after an offer went, as WHIP trickles them (RFC 9725 section 4.3): a PATCH
/// of `application/trickle-ice-sdpfrag` (RFC 8840) naming the ICE credentials and the bundled
/// m-line they belong to, then the candidate lines, and `a=end-of-candidates` after the last.
public struct TrickleFragment: Sendable, Equatable {
    public static let contentType = "application/trickle-ice-sdpfrag"

    /// The offer's lines a fragment repeats: its credentials, its first m-line and that line's mid.
    let header: [String]

    /// Reads them from `offer`; `nil` when it lacks any (no fragment could be matched to it).
    public init?(offer: String) {
        let lines = offer.split(whereSeparator: \.isNewline).map(String.init)
        guard let media = lines.firstIndex(where: { $0.hasPrefix("m=") }) else { return nil }
        let first = lines[media...].dropFirst().prefix { !$0.hasPrefix("m=") }
        // Credentials at the session's level or the m-line's, the first given.
        guard let user = lines.first(where: { $0.hasPrefix("a=ice-ufrag:") }),
              let password = lines.first(where: { $0.hasPrefix("a=ice-pwd:") }),
              let mid = first.first(where: { $0.hasPrefix("a=mid:") }) else { return nil }
        header = [user, password, lines[media], mid]
    }

    /// The fragment for `candidates` (`a=candidate:…` lines), ended when `complete`.
    public func text(candidates: [String], complete: Bool) -> String {
        (header + candidates + (complete ? ["a=end-of-candidates"] : [])).map { $0 + "\r\n" }.joined()
    }
}
