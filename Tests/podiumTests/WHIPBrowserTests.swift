import Foundation
import PodiumTestSupport
import Testing

/// WHIP's runs that judge real-time delivery to a browser or over a lossy link, as processes of
/// their own: Chromium answering Podium's offer, through Janus and a flood of its viewers, under
/// loss and behind a narrowing link, through a TURN server; aiortc's decoding repaired under 5 %
/// loss, its bit rate lowered under heavy loss. In the tests' process, beside these lanes, Chromium
/// painted 86 of a run's 100 pictures and aiortc decoded under 95 % of what was sent (a process:
/// 100 and more). The rest of WHIP runs in the tests' process (PodiumCLIRunTests' `WHIPTests`).
@Suite(.serialized) struct WHIPBrowserTests {
    /// Headless Chromium as the receiver, as an audience is: answering Podium's offer itself
    /// (`Scripts/whip-endpoint --receiver page`), or subscribing through Janus's VideoRoom, the
    /// media server Podium published to (`--receiver janus`). It decodes and paints the pictures,
    /// whose strips it reads back whole, and receives the sound.
    @Test(arguments: ["page", "janus"]) func aBrowserPlaysPicturesAndSound(receiver: String) throws {
        let stage = try WHIPStage()
        defer { stage.stop() }
        let log = try Tools.temporaryFolder().appendingPathComponent("page.jsonl")
        let port = Tools.freePort()
        let endpoint = try Tools.start(WHIPEndpoint.script, ["--port", "\(port)", "--receiver", receiver,
                                                             "--janus-port", "\(Tools.freePort())", "--log", log.path])
        defer { _ = try? endpoint.interrupt(timeout: 10) }
        try endpoint.waitForStderr(containing: "whip-endpoint: ready", timeout: 30)
        func browse() throws -> RunningCommand {
            try Tools.start(Tools.repository.appendingPathComponent("Scripts/browse").path, [
                // Open until the run is over.
                "http://127.0.0.1:\(port)/", "--until", "false", "--timeout", "20", "--size", "640x360",
                "--flag=--disable-features=WebRtcHideLocalIpsWithMdns",
                "--flag=--autoplay-policy=no-user-gesture-required",
            ])
        }
        // The page answers Podium's offer, so it is there first; through Janus it joins a running
        // stream, as an audience does.
        var browser = receiver == "page" ? try browse() : nil
        defer { _ = try? browser?.interrupt(timeout: 5) }
        if browser != nil { Thread.sleep(forTimeInterval: 3) }
        let podium = try Tools.start(Tools.podium.path, [
            "stream", "--audio", "--duration", "12s", "--to", "whip+http://127.0.0.1:\(port)/whip/talk",
        ], environment: stage.sound.environment.merging(["DISPLAY": stage.display.display]) { $1 })
        try podium.waitForStderr(containing: "ICE connected", timeout: 20)
        if browser == nil { browser = try browse() }
        let run = try podium.wait(timeout: 30)
        #expect(run.status == 0, "\(run.stderr)")
        let counts = try #require(WHIPEndpoint.lastCounts(log).values.first, "\(WHIPEndpoint.events(log))")
        // At least 5 s on the page (which reports once a second).
        #expect((counts["video"] as? Int ?? 0) >= 100 && (counts["painted"] as? Int ?? 0) >= 100, "\(counts)")
        #expect(counts["size"] as? String == "640x360" && (counts["audio"] as? Int ?? 0) >= 200, "\(counts)")
        // The strips read back: the pictures arrive whole, and their times make sense. Each report
        // has the median of its second; through Janus, whose session outlives the run, the last
        // ones may come after the last picture, with none.
        let reported = WHIPEndpoint.events(log).filter { $0["event"] as? String == "frames" }
            .compactMap { $0["latency"] as? Double }
        let latency = try #require(reported.last, "\(counts)")
        #expect(latency > 0 && latency < 1_000, "\(counts)")
        let events = WHIPEndpoint.events(log)
        #expect(events.contains { $0["event"] as? String == "deleted" }, "\(events)")
    }

    /// A flood of viewers at the media server (a page subscribing twelve times at once to Janus's
    /// VideoRoom) stays there: Podium goes on sending one stream to one session at the same frame
    /// rate, dropping nothing; of the keyframes Janus asks for as each viewer arrives (dozens), it
    /// makes at most two a second, so the viewers decode hardly more keyframes than the schedule's.
    @Test func aFloodOfViewersStaysAtTheMediaServer() throws {
        let stage = try WHIPStage()
        defer { stage.stop() }
        let folder = try Tools.temporaryFolder()
        let (log, stats, port) = (folder.appendingPathComponent("page.jsonl"),
                                  folder.appendingPathComponent("stats.jsonl"), Tools.freePort())
        // The viewers' side (Janus, and Chromium decoding twelve streams) is another machine in life;
        // here it gets the last core of its own, so what is judged is Podium's pace, not a starved
        // capture thread's.
        let theirCore = ["-c", "\(ProcessInfo.processInfo.activeProcessorCount - 1)"]
        let endpoint = try Tools.start("/usr/bin/taskset", theirCore + [WHIPEndpoint.script, "--port", "\(port)",
                                       "--receiver", "janus", "--janus-port", "\(Tools.freePort())",
                                       "--log", log.path])
        defer { _ = try? endpoint.interrupt(timeout: 10) }
        try endpoint.waitForStderr(containing: "whip-endpoint: ready", timeout: 30)
        let viewers = 12
        let podium = try Tools.start(Tools.podium.path, [
            "stream", "--duration", "16s", "--stats-json", stats.path,
            "--to", "whip+http://127.0.0.1:\(port)/whip/talk",
        ], environment: ["DISPLAY": stage.display.display])
        try podium.waitForStderr(containing: "ICE connected", timeout: 20)
        Thread.sleep(forTimeInterval: 3)
        let browser = try Tools.start("/usr/bin/taskset", theirCore + [
            Tools.repository.appendingPathComponent("Scripts/browse").path,
            "http://127.0.0.1:\(port)/?viewers=\(viewers)", "--until", "false", "--timeout", "20", "--size", "640x360",
            "--flag=--disable-features=WebRtcHideLocalIpsWithMdns",
        ])
        defer { _ = try? browser.interrupt(timeout: 5) }
        let run = try podium.wait(timeout: 40)
        #expect(run.status == 0, "\(run.stderr)")
        // The flood reached the media server: every viewer decoded pictures.
        let counts = WHIPEndpoint.lastCounts(log).values
        let report = "\(counts.map { ($0["video"] as? Int ?? 0, $0["keyframes"] as? Int ?? 0) }); \(run.stderr)"
        #expect(counts.count == viewers && counts.allSatisfy { $0["video"] as? Int ?? 0 >= 100 }, "\(report)")
        let events = WHIPEndpoint.events(log)
        #expect(events.filter { $0["event"] as? String == "session" }.count == 1, "\(events)")
        // Podium kept its pace.
        let samples = ((try? String(contentsOf: stats, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["kind"] as? String == "interval" && ($0["elapsed"] as? Double ?? 0) >= 2 }
        #expect(samples.count >= 12 && samples.allSatisfy { $0["capturedFPS"] as? Double ?? 0 >= 25 }, "\(samples)")
        // Capture and encoder dropped nothing. The WHIP output may drop a frame or two of its own (of
        // 480) when the viewers' side starves GStreamer's sending threads, as a slow output should.
        func dropped(_ stage: String) -> Int {
            samples.reduce(0) { $0 + (($1["drops"] as? [String: Int])?[stage] ?? 0) }
        }
        #expect(dropped("encoder") + dropped("skipped") + dropped("noBuffer") + dropped("window") == 0
                && dropped("sinks") <= 2, "\(samples)")
        // Asked for many keyframes ("the receiver asked for F keyframes"), it made few: the viewers
        // were there about 12 s, with a keyframe every 2 s on schedule.
        let said = run.stderr.split(separator: "\n").first { $0.contains("keyframes") && $0.contains("asked for") }
        let asked = said.flatMap { $0.split(separator: " ").reversed().dropFirst().first.flatMap { Int($0) } } ?? 0
        let keyframes = counts.map { $0["keyframes"] as? Int ?? 0 }.max() ?? 0
        #expect(asked >= viewers && keyframes <= 6 + 4 && keyframes > 0,
                "asked \(asked), decoded \(keyframes): \(report)")
    }

    /// Chromium answering Podium's offer itself (`Scripts/whip-endpoint --receiver page`), in a
    /// network namespace of its own, reached over a veth pair whose losses and width a test sets.
    struct BrowserBehindALink {
        let namespace: NetworkNamespace
        let endpoint: RunningCommand
        let browser: RunningCommand
        let url: String
        let log: URL

        init() throws {
            namespace = try NetworkNamespace()
            let port: Int
            (endpoint, url, port, log) = try WHIPEndpoint.start(in: namespace, room: "linked", receiver: "page")
            browser = try namespace.start(Tools.repository.appendingPathComponent("Scripts/browse").path, [
                "http://\(namespace.address):\(port)/", "--until", "false", "--timeout", "28", "--size", "640x360",
                "--flag=--disable-features=WebRtcHideLocalIpsWithMdns",
                "--flag=--autoplay-policy=no-user-gesture-required",
            ])
            Thread.sleep(forTimeInterval: 3)
        }

        func stop() {
            _ = try? browser.interrupt(timeout: 5)
            _ = try? endpoint.interrupt(timeout: 10)
        }
    }

    /// Chromium receiving over a link that loses 5 % of what reaches it: its NACKs and PLIs repair
    /// the picture, it decodes at least 95 % of the pictures sent, and its freezes add up to less
    /// than a second.
    @Test func aBrowserUnderLossKeepsPlaying() throws {
        let stage = try WHIPStage()
        defer { stage.stop() }
        let page = try BrowserBehindALink()
        defer { page.stop() }
        let podium = try Tools.start(Tools.podium.path, ["stream", "--duration", "14s", "--to", page.url],
                                     environment: ["DISPLAY": stage.display.display])
        try podium.waitForStderr(containing: "ICE connected", timeout: 20)
        try page.namespace.drop(percent: 5)
        let run = try podium.wait(timeout: 40)
        #expect(run.status == 0, "\(run.stderr)")
        let sent = try #require(WHIPEndpoint.picturesSent(run.stderr).first, "\(run.stderr)")
        let counts = try #require(WHIPEndpoint.lastCounts(page.log).values.first, "\(WHIPEndpoint.events(page.log))")
        // The page reports once a second: up to a second of pictures may not be counted yet.
        let decoded = counts["video"] as? Int ?? 0
        #expect(Double(decoded) >= 0.95 * Double(sent) - 30, "decoded \(decoded) of \(sent): \(counts)")
        #expect((counts["lost"] as? Int ?? 0) > 0 && (counts["nacks"] as? Int ?? 0) > 0, "\(counts)")
        let frozen = try #require((counts["frozen"] as? NSNumber)?.doubleValue, "\(counts)")
        #expect(frozen < 1, "frozen \(frozen) s in all: \(counts)")
    }

    /// A bit rate as Podium writes one (`2Mbit/s`, `690kbit/s`), in bits per second.
    static func bitsPerSecond(_ text: String) -> Double {
        let number = Double(text.prefix { $0.isNumber || $0 == "." }) ?? .infinity
        return number * (text.contains("Mbit") ? 1_000_000 : text.contains("kbit") ? 1_000 : 1)
    }

    /// Chromium behind a link that narrows to 700 kbit/s under a 2 Mbit/s stream: the rate comes
    /// down within a second and a half, by the network (the receiver's estimate, its losses or the
    /// round trip), under the link within four, and the encoder follows it, so the pictures go on
    /// being decoded.
    @Test func aBrowserBehindANarrowLinkGetsWhatTheLinkCarries() throws {
        let stage = try WHIPStage()
        defer { stage.stop() }
        let page = try BrowserBehindALink()
        defer { page.stop() }
        let stats = try Tools.temporaryFolder().appendingPathComponent("stats.jsonl")
        let podium = try Tools.start(Tools.podium.path, [
            "stream", "--duration", "16s", "--bitrate", "2M", "--stats-json", stats.path, "--to", page.url,
        ], environment: ["DISPLAY": stage.display.display])
        let started = Date()
        try podium.waitForStderr(containing: "ICE connected", timeout: 20)
        Thread.sleep(forTimeInterval: 2)
        try page.namespace.limitIncoming(kilobitsPerSecond: 700)
        let narrowed = Date().timeIntervalSince(started)
        let run = try podium.wait(timeout: 40)
        #expect(run.status == 0, "\(run.stderr)")
        let records = ((try? String(contentsOf: stats, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let changes = records.filter { $0["kind"] as? String == "change" && $0["by"] as? String == "network" }
            .map { (elapsed: $0["elapsed"] as? Double ?? 0, to: Self.bitsPerSecond($0["to"] as? String ?? "")) }
        let report = "narrowed at \(narrowed) s; changes \(changes); \(run.stderr)"
        let first = try #require(changes.first { $0.elapsed >= narrowed - 0.5 }, "\(report)")
        #expect(first.elapsed <= narrowed + 1.5, "\(report)")
        let under = changes.first { $0.to <= 700_000 }
        #expect(under.map { $0.elapsed <= narrowed + 4 } == true, "\(report)")
        // The encoder's output over the last four seconds: within the link.
        let last = records.filter { $0["kind"] as? String == "interval" && ($0["elapsed"] as? Double ?? 0) > 12 }
            .compactMap { $0["mbps"] as? Double }
        #expect(!last.isEmpty && last.reduce(0, +) / Double(last.count) <= 0.7, "\(last); \(report)")
        // And the pictures go on: the page decoded at least half of the last four seconds' frames.
        let frames = WHIPEndpoint.events(page.log).filter { $0["event"] as? String == "frames" }
            .compactMap { $0["video"] as? Int }
        #expect(frames.count >= 5 && frames[frames.count - 1] - frames[frames.count - 5] >= 60, "\(frames)")
    }

    /// Two networks that see each other only through a TURN server (coturn, on a second address
    /// of this side; the endpoint's namespace lets no other datagram to or from this side through):
    /// ICE settles on Podium's relayed candidate, the pictures decode, and the TURN password is
    /// never shown. `late`: the TURN server is reached over TCP through a proxy that holds each
    /// connection 1.5 s, so the relayed candidate comes after the offer went (at 1 s): it is sent
    /// by trickle ICE (a PATCH the endpoint takes), or ICE could not connect at all.
    @Test(arguments: [false, true]) func aTURNServerCarriesWhatNothingElseCan(late: Bool) throws {
        let stage = try WHIPStage()
        defer { stage.stop() }
        let namespace = try NetworkNamespace()
        let (turnPort, proxyPort, relayPorts) = (Tools.freePort(), Tools.freePort(), "30000-30050")
        let secret = "s3cret-\(UUID().uuidString.prefix(8))"
        // Relayed ports below the kernel's ephemeral range, which Podium's own sockets come from.
        let turn = try Tools.start("sh", ["-c", "exec turnserver -n --listening-ip=\(namespace.serverAddress) "
            + "--relay-ip=\(namespace.serverAddress) --listening-port=\(turnPort) --min-port=30000 --max-port=30050 "
            + "--lt-cred-mech --user=podium:\(secret) --realm=podium --no-cli --no-tls --no-dtls --simple-log "
            + "--pidfile=/dev/null --log-file=stdout 1>&2"])
        defer { _ = try? turn.interrupt(timeout: 5) }
        try turn.waitForStderr(containing: "Total General servers", timeout: 20)
        let proxy = try Tools.start(Tools.repository.appendingPathComponent("Scripts/slow-proxy").path, [
            "--host", namespace.serverAddress, "--port", "\(proxyPort)",
            "--to", "\(namespace.serverAddress):\(turnPort)", "--delay", "1.5",
        ])
        defer { _ = try? proxy.interrupt(timeout: 5) }
        try proxy.waitForStderr(containing: "slow-proxy: ready", timeout: 20)
        try namespace.reachOnly(namespace.serverAddress, udpPorts: ["\(turnPort)", relayPorts])
        let (endpoint, url, _, log) = try WHIPEndpoint.start(in: namespace, room: "relayed")
        defer { _ = try? endpoint.interrupt(timeout: 5) }
        let server = "turn:podium:\(secret)@\(namespace.serverAddress):"
            + (late ? "\(proxyPort)?transport=tcp" : "\(turnPort)")
        let run = try Tools.podium(["stream", "--duration", "8s", "--ice-server", server, "--to", url],
                                   display: stage.display.display)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("(relay \(namespace.serverAddress):"), "\(run.stderr)")
        // Relayed ICE takes a second or two (the host pairs are tried first): what was sent decodes.
        let sent = try #require(WHIPEndpoint.picturesSent(run.stderr).first, "\(run.stderr)")
        let decoded = WHIPEndpoint.lastCounts(log).values.first?["video"] as? Int ?? 0
        #expect(sent >= 30 && decoded >= sent - 15, "decoded \(decoded) of \(sent): \(run.stderr)")
        #expect(!run.stderr.contains(secret) && !run.stdout.contains(secret))
        let trickled = WHIPEndpoint.events(log).filter { $0["event"] as? String == "trickle" }
        if late {
            let candidates = trickled.flatMap { $0["candidates"] as? [String] ?? [] }
            #expect(candidates.contains { $0.contains("typ relay") }, "\(trickled)")
            #expect(trickled.last?["end"] as? Bool == true, "\(trickled)")
            #expect(run.stderr.contains("gathered after the offer trickled"), "\(run.stderr)")
        } else {
            #expect(trickled.isEmpty, "nothing came late: \(trickled)")
        }
    }

    /// The endpoint in a network namespace of its own, reached over a veth pair, drops 5 % of
    /// what reaches it: lost packets are asked for again (NACK) and sent again, and at least 95 %
    /// of the pictures sent are decoded. Under 25 % loss the bit rate goes down, a change by the
    /// network in --stats-json.
    @Test func lossIsRepairedAndHeavyLossLowersTheBitRate() throws {
        let stage = try WHIPStage()
        defer { stage.stop() }
        let namespace = try NetworkNamespace()
        let folder = try Tools.temporaryFolder()
        let (endpoint, url, _, log) = try WHIPEndpoint.start(in: namespace, room: "lossy")
        defer { _ = try? endpoint.interrupt(timeout: 5) }
        // Loss starts once connected: it would stretch DTLS's handshake by its timeouts (1 s, 2 s, …).
        func stream(_ arguments: [String], losing percent: Int) throws -> CommandResult {
            try namespace.drop(percent: 0)
            let run = try Tools.start(Tools.podium.path, ["stream"] + arguments + ["--to", url],
                                      environment: stage.sound.environment.merging(["DISPLAY": stage.display.display])
                                      { $1 })
            try run.waitForStderr(containing: "ICE connected", timeout: 20)
            try namespace.drop(percent: percent)
            return try run.wait(timeout: 40)
        }
        let lossy = try stream(["--audio", "--duration", "12s"], losing: 5)
        #expect(lossy.status == 0, "\(lossy.stderr)")
        let sent = try #require(WHIPEndpoint.picturesSent(lossy.stderr).first, "\(lossy.stderr)")
        let decoded = WHIPEndpoint.lastCounts(log).values.first?["video"] as? Int ?? 0
        #expect(sent >= 150 && Double(decoded) >= 0.95 * Double(sent), "decoded \(decoded) of \(sent)")
        let repaired = lossy.stderr.split(separator: "\n").first { $0.contains(" again for ") }.map(String.init) ?? ""
        let numbers = repaired.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        // "sent N pictures (P packets, R again for K NACKs)": some were asked for and sent again.
        #expect(numbers.count >= 4 && numbers[numbers.count - 3] > 0 && numbers[numbers.count - 2] > 0, "\(repaired)")

        let stats = folder.appendingPathComponent("stats.jsonl")
        let heavy = try stream(["--duration", "8s", "--bitrate", "2M", "--stats-json", stats.path], losing: 25)
        #expect(heavy.status == 0, "\(heavy.stderr)")
        let changes = ((try? String(contentsOf: stats, encoding: .utf8)) ?? "").split(separator: "\n")
            .filter { $0.contains("\"kind\":\"change\"") && $0.contains("\"by\":\"network\"") }
        #expect(changes.contains { $0.contains("\"setting\":\"bitrate\"") && $0.contains("% lost") },
                "\(heavy.stderr)")
        #expect(heavy.stderr.contains("bitrate 2Mbit/s → "), "\(heavy.stderr)")
    }
}
