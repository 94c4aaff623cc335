import Foundation
import PodiumTestSupport
import Testing

/// WHIP against a real endpoint (`Scripts/whip-endpoint`, aiortc, which decodes what arrives):
/// `podium whip-check`'s offer and answer over HTTP with the token as a Bearer, ICE and DTLS
/// connected, the session deleted; `--to whip+http://…` publishing pictures and sound that decode
/// to what was on screen and the tone that played, again after the endpoint went away, its lost
/// beginning repaired at once; a refusal is said with its status, and the token is never shown.
/// Browsers and loss: podiumTests' `WHIPBrowserTests`.
@Suite(.serialized, .programThreads) struct WHIPTests {
    @Test func aCheckNegotiatesConnectsAndDeletesItsSession() async throws {
        let token = "t0ken-\(UUID().uuidString.prefix(8))"
        let (endpoint, port, log) = try WHIPEndpoint.start(token: token)
        defer { _ = try? endpoint.interrupt(timeout: 5) }
        let url = "whip+http://127.0.0.1:\(port)/whip/talk?token=\(token)"
        let checked = try await ProgramRun.podium(["whip-check", url], timeout: 60)
        #expect(checked.status == 0, "\(checked.stderr)")
        for said in ["whip+http://127.0.0.1:\(port)/whip/•••• answered in", "video H264/90000 (payload 96",
                     "packetization-mode=1", "audio opus/48000/2", "ICE connected", "DTLS done at",
                     "it takes candidates trickled after the offer (Accept-Patch)",
                     "deleted the session (200)"] {
            #expect(checked.stderr.contains(said), "\(said): \(checked.stderr)")
        }
        #expect(!checked.stderr.contains(token) && !checked.stdout.contains(token))
        let logged = WHIPEndpoint.events(log)
        #expect(logged.first?["event"] as? String == "session" && logged.first?["room"] as? String == "talk")
        #expect(logged.contains { $0["event"] as? String == "state" && $0["state"] as? String == "connected" },
                "\(logged)")
        #expect(logged.contains { $0["event"] as? String == "deleted" }, "\(logged)")

        let refused = try await ProgramRun.podium(["whip-check", "whip+http://127.0.0.1:\(port)/whip/talk?token=wrong"])
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(refused.stderr.contains("answered 401 Unauthorized") && !refused.stderr.contains("wrong"),
                "\(refused.stderr)")
        let typo = try await ProgramRun.podium(["whip-check", "https://127.0.0.1:\(port)/whip/talk?token=\(token)"])
        #expect(typo.status == 64 && typo.stderr.contains("expected whip+https://host/path"), "\(typo.stderr)")
        #expect(!typo.stderr.contains(token))
    }

    @Test func aStreamPublishesPicturesAndSoundThatDecode() async throws {
        let stage = try WHIPStage()
        defer { stage.stop() }
        let token = "t0ken-\(UUID().uuidString.prefix(8))"
        let (endpoint, port, log) = try WHIPEndpoint.start(token: token)
        defer { _ = try? endpoint.interrupt(timeout: 5) }
        let url = "whip+http://127.0.0.1:\(port)/whip/talk?token=\(token)"
        let run = try await ProgramRun.podium(["stream", "--audio", "--duration", "6s", "--to", url],
                                              display: stage.display.display, environment: stage.sound.environment)
        #expect(run.status == 0, "\(run.stderr)")
        for said in ["opus with libopus", "its bit rate follows the network, up to", "ICE connected", "pictures ("] {
            #expect(run.stderr.contains(said), "\(said): \(run.stderr)")
        }
        #expect(!run.stderr.contains(token) && !run.stdout.contains(token))
        let logged = WHIPEndpoint.events(log)
        let counts = try #require(WHIPEndpoint.lastCounts(log).values.first, "\(logged)")
        let sent = try #require(WHIPEndpoint.picturesSent(run.stderr).first, "\(run.stderr)")
        // Seconds of pictures at 30 fps once connected (how many depends on how long connecting
        // took); every one sent is decoded but for the last few.
        let decoded = counts["video"] as? Int ?? 0
        #expect(sent >= 60 && decoded >= sent - 10, "decoded \(decoded) of \(sent)")
        #expect(counts["size"] as? String == "640x360" && (counts["keyframes"] as? Int ?? 0) >= 2, "\(counts)")
        // Sound for as long as the pictures (Opus frames of 20 ms beside pictures of 33 ms), once
        // connected: a slow connection (3.7 s on a busy machine) leaves 2.3 s of each.
        let audio = counts["audio"] as? Int ?? 0
        #expect(audio >= 100 && Double(audio) >= Double(decoded) * 50 / 30 * 0.8, "\(counts)")
        let tone = try #require(counts["tone"] as? Int, "\(counts)")
        #expect(abs(tone - 440) <= 3, "the tone heard: \(counts)")
        #expect(logged.contains { $0["event"] as? String == "deleted" }, "\(logged)")

        let refused = try await ProgramRun.podium(["stream", "--duration", "20s", "--to",
                                                   "whip+http://127.0.0.1:\(port)/whip/talk"],
                                                  display: stage.display.display, timeout: 30)
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(refused.stderr.contains("answered 401 Unauthorized"), "\(refused.stderr)")
    }

    /// A run that ends before its outputs start (no sound server answers) ends with its own code,
    /// 69: nothing a WHIP output starts (GStreamer, its DTLS key) outlives it into the process's exit,
    /// where OpenSSL's cleanup crashed a key still being made.
    @Test func aRunThatEndsBeforeItStartsEndsWithItsCode() async throws {
        let display = try XvfbServer(width: 320, height: 240)
        let result = try await ProgramRun.podium(["stream", "--audio", "-t", "2s",
                                                  "--to", "whip+http://127.0.0.1:9/whip/x"],
                                                 display: display.display,
                                                 environment: ["PULSE_SERVER": "unix:/nonexistent"])
        #expect(result.status == 69 && result.stderr.contains("no sound server"), "\(result.status) \(result.stderr)")
        #expect(!result.stderr.contains("crashed"), "\(result.stderr)")
    }

    /// The stream's first 20 kB lost (its parameter sets and most of its first keyframe, about
    /// 25 kB here), which a receiver cannot ask for again: it never knew they were sent. The
    /// second keyframe that follows the first repairs it: at least 90 % of the pictures sent are
    /// decoded (without it, 119 of 225: none until the next keyframe, 4 s on).
    @Test func aStreamWhoseBeginningIsLostIsRepairedAtOnce() async throws {
        let stage = try WHIPStage()
        defer { stage.stop() }
        let namespace = try NetworkNamespace()
        let (endpoint, url, _, log) = try WHIPEndpoint.start(in: namespace, room: "start")
        defer { _ = try? endpoint.interrupt(timeout: 5) }
        try namespace.drop(firstMediaBytes: 20_000)
        let run = try await ProgramRun.podium(["stream", "--duration", "8s", "--keyint", "4s", "--to", url],
                                              display: stage.display.display, timeout: 40)
        #expect(run.status == 0, "\(run.stderr)")
        let sent = try #require(WHIPEndpoint.picturesSent(run.stderr).first, "\(run.stderr)")
        let decoded = WHIPEndpoint.lastCounts(log).values.first?["video"] as? Int ?? 0
        #expect(sent >= 100 && Double(decoded) >= 0.9 * Double(sent),
                "decoded \(decoded) of \(sent): \(WHIPEndpoint.events(log))")
    }

    /// An endpoint that goes away mid-run is connected to again once it is back, with a session of
    /// its own; the run goes on and ends well.
    @Test func anEndpointThatGoesAwayIsConnectedToAgain() async throws {
        let stage = try WHIPStage()
        defer { stage.stop() }
        let token = "again"
        var (endpoint, port, log) = try WHIPEndpoint.start(token: token)
        let run = ProgramRun.start(["stream", "--duration", "25s", "--to",
                                    "whip+http://127.0.0.1:\(port)/whip/talk?token=\(token)"],
                                   display: stage.display.display)
        try await run.waitForStderr(containing: "ICE connected", timeout: 20)
        try await Task.sleep(for: .seconds(2))
        endpoint.signal(SIGKILL)
        _ = try? endpoint.wait(timeout: 5)
        try await Task.sleep(for: .seconds(2))
        (endpoint, port, log) = try WHIPEndpoint.start(token: token, port: port, log: log)
        defer { _ = try? endpoint.interrupt(timeout: 5) }
        try await run.waitForStderr(containing: "connected again after", timeout: 30)
        let result = try await run.wait(timeout: 40)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("the receiver has said nothing for"), "\(result.stderr)")
        let sessions = WHIPEndpoint.events(log).filter { $0["event"] as? String == "session" }
        #expect(sessions.count == 2, "\(WHIPEndpoint.events(log)); \(result.stderr)")
        let second = try #require(sessions.last?["resource"] as? String)
        #expect((WHIPEndpoint.lastCounts(log)[second]?["video"] as? Int ?? 0) >= 30,
                "\(WHIPEndpoint.events(log))")
    }

    /// An endpoint that misbehaves (`Scripts/hostile-whip`): the token goes to its own origin
    /// only, and an answer Podium cannot use ends the output at once, 69, in one line that names no
    /// token.
    @Test(arguments: [
        ("redirect", "answered 404"), ("garbage", "not one WebRTC takes"),
        ("no-location", "without the session's Location"), ("huge", "more than 256 KiB"),
    ])
    func aMisbehavingEndpointEndsTheOutputAndKeepsTheToken(mode: String, said: String) async throws {
        let display = try XvfbServer(width: 320, height: 240)
        let (port, other) = (Tools.freePort(), Tools.freePort())
        let endpoint = try Tools.start(Tools.repository.appendingPathComponent("Scripts/hostile-whip").path,
                                       [mode, "\(port)", "127.0.0.2", "\(other)"])
        defer { _ = try? endpoint.interrupt() }
        try endpoint.waitForStderr(containing: "hostile-whip: ready")
        let token = "secret-\(UUID().uuidString.prefix(8))"
        let url = "whip+http://127.0.0.1:\(port)/whip/room?token=\(token)"
        let result = try await ProgramRun.podium(["stream", "-t", "20s", "--to", url], display: display.display)
        #expect(result.status == 69, "\(result.status) \(result.stderr)")
        #expect(result.stderr.contains(said) && !result.stderr.contains(token), "\(result.stderr)")
        #expect(!result.stderr.contains("reconnecting") && !result.stderr.contains("retry"), "\(result.stderr)")
        let requests = endpoint.stdoutSoFar.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(requests.first?["authorization"] as? String == "Bearer \(token)", "\(requests)")
        // Nowhere else does the token go: not to the origin a redirect names.
        #expect(requests.filter { $0["host"] as? String != "127.0.0.1" }.allSatisfy { $0["authorization"] is NSNull },
                "\(requests)")
        if mode == "redirect" { #expect(requests.contains { $0["host"] as? String == "127.0.0.2" }, "\(requests)") }
    }
}
