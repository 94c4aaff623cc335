import PodiumCore

/// Sends a session's late candidates to its server as they are gathered (trickle ICE), where the
/// server said it takes them: WebRTCPeer.connect's `trickle` handler, on the connecting thread.
public final class Trickle {
    private let session: WHIPSession
    private let fragment: TrickleFragment
    /// Candidates sent, and the status of a PATCH the server refused.
    private(set) var sent = 0
    private(set) var refused: Int?

    /// `nil` when the server takes no trickled candidates, or the offer has none to match them to.
    public init?(session: WHIPSession, offer: String) {
        guard session.trickles, let fragment = TrickleFragment(offer: offer) else { return nil }
        self.session = session
        self.fragment = fragment
    }

    /// PATCHes `late` to the session (unless the server refused before); the end of candidates
    /// only after some went (one whole offer needs none).
    public func send(_ late: WebRTCPeer.LateCandidates) {
        guard refused == nil, !late.lines.isEmpty || sent > 0 else { return }
        let (session, text) = (session, fragment.text(candidates: late.lines, complete: late.complete))
        let status = (try? WHIPSession.blocking { () async throws(PodiumError) in await session.trickle(text) }) ?? nil
        guard let status, (200..<300).contains(status) else {
            refused = status ?? 0
            return
        }
        sent += late.lines.count
    }

    /// What happened, for a person: `nil` when nothing was to trickle.
    public var summary: String? {
        if let refused {
            return refused == 0 ? "trickled candidates did not reach the server"
                : "the server refused trickled candidates (\(refused))"
        }
        return sent > 0 ? "\(sent) candidate\(sent == 1 ? "" : "s") gathered after the offer trickled" : nil
    }
}
