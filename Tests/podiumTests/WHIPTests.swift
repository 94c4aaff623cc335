import Foundation
import PodiumTestSupport
import Testing

/// `podium whip-check` against a real WHIP endpoint (`Scripts/whip-endpoint`, aiortc): the offer
/// and answer over HTTP with the token as a Bearer, ICE and DTLS connected, the session deleted;
/// a refusal is said with its status, and the token is never shown.
@Suite(.serialized) struct WHIPTests {
    /// A WHIP endpoint on a free loopback port, wanting `token`, and its log of JSON lines.
    func endpoint(token: String) throws -> (endpoint: RunningCommand, port: Int, log: URL) {
        let log = try Tools.temporaryFolder().appendingPathComponent("whip.jsonl")
        let port = Tools.freePort()
        let script = Tools.repository.appendingPathComponent("Scripts/whip-endpoint").path
        let endpoint = try Tools.start(script, ["--port", "\(port)", "--token", token, "--log", log.path])
        try endpoint.waitForStderr(containing: "whip-endpoint: ready", timeout: 30)
        return (endpoint, port, log)
    }

    /// The events the endpoint logged.
    func events(_ log: URL) -> [[String: Any]] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test func aCheckNegotiatesConnectsAndDeletesItsSession() throws {
        let token = "t0ken-\(UUID().uuidString.prefix(8))"
        let (endpoint, port, log) = try self.endpoint(token: token)
        defer { _ = try? endpoint.interrupt(timeout: 5) }
        let url = "whip+http://127.0.0.1:\(port)/whip/talk?token=\(token)"
        let checked = try Tools.podium(["whip-check", url], timeout: 60)
        #expect(checked.status == 0, "\(checked.stderr)")
        for said in ["whip+http://127.0.0.1:\(port)/whip/•••• answered in", "video H264/90000 (payload 96",
                     "packetization-mode=1", "audio opus/48000/2", "ICE connected", "DTLS done at",
                     "deleted the session (200)"] {
            #expect(checked.stderr.contains(said), "\(said): \(checked.stderr)")
        }
        #expect(!checked.stderr.contains(token) && !checked.stdout.contains(token))
        let logged = events(log)
        #expect(logged.first?["event"] as? String == "session" && logged.first?["room"] as? String == "talk")
        #expect(logged.contains { $0["event"] as? String == "state" && $0["state"] as? String == "connected" },
                "\(logged)")
        #expect(logged.contains { $0["event"] as? String == "deleted" }, "\(logged)")

        let refused = try Tools.podium(["whip-check", "whip+http://127.0.0.1:\(port)/whip/talk?token=wrong"])
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(refused.stderr.contains("answered 401 Unauthorized") && !refused.stderr.contains("wrong"),
                "\(refused.stderr)")
        let typo = try Tools.podium(["whip-check", "https://127.0.0.1:\(port)/whip/talk?token=\(token)"])
        #expect(typo.status == 64 && typo.stderr.contains("expected whip+https://host/path"), "\(typo.stderr)")
        #expect(!typo.stderr.contains(token))
    }
}
