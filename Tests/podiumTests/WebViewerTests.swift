import Foundation
import PodiumTestSupport
import Synchronization
import Testing

/// The browser viewer (`--to http://…`), played by Debian's Chromium, headless, as a viewer's
/// browser would: WebCodecs on localhost and HTTPS, Media Source Extensions on plain HTTP to a
/// name that is not local; the viewers' own reports in `--stats-json`.
@Suite(.serialized) struct WebViewerTests {
    /// A run with a viewer's server, and the link it printed.
    struct Served {
        let run: RunningCommand
        let link: String
        let stats: String
    }

    /// Starts `podium stream` of `display` to `viewer` (and `more`), and reads the link it prints;
    /// `limit` is a shell's `ulimit` to run it under.
    func serve(_ viewer: String, display: String, seconds: Int, more: [String] = [],
               environment: [String: String] = [:], limit: String? = nil) throws -> Served {
        let folder = try Tools.temporaryFolder()
        let stats = folder.appendingPathComponent("stats.json").path
        var environment = environment
        environment["DISPLAY"] = display
        let arguments = ["stream", "--duration", "\(seconds)s", "--to", viewer, "--stats-json", stats] + more
        let run = try limit.map {
            try Tools.start("/bin/sh", ["-c", "\($0) && exec \"$0\" \"$@\"", Tools.podium.path] + arguments,
                            environment: environment)
        } ?? Tools.start(Tools.podium.path, arguments, environment: environment)
        try run.waitForStderr(containing: "viewers open ")
        let line = run.stderrSoFar.split(separator: "\n").first { $0.contains("viewers open ") } ?? ""
        let link = line.split(separator: " ").last.map(String.init) ?? ""
        return Served(run: run, link: link, stats: stats)
    }

    /// Opens `link` in Chromium until the page painted `frames` frames and `condition` holds;
    /// returns what `window.podium` said, and `held`: whether it came to that. With `click`, that
    /// element is then clicked, and what the page says is returned once `then` holds.
    func watch(_ link: String, frames: Int, until condition: String = "true", flags: [String] = [],
               screenshot: String? = nil, size: String = "640x480", click: String? = nil,
               then: String = "true") throws -> [String: Any] {
        var arguments = [link, "--size", size, "--timeout", "30",
                         "--until", "window.podium && window.podium.painted >= \(frames) && \(condition)",
                         "--value", "window.podium"] + flags.map { "--flag=\($0)" }
        if let screenshot { arguments += ["--screenshot", screenshot] }
        if let click { arguments += ["--click", click, "--then", then] }
        let result = try Tools.run(Tools.repository.appendingPathComponent("Scripts/browse").path, arguments,
                                   timeout: 60)
        #expect(result.status == 0, "the page did not paint \(frames) frames: \(result.stdout) \(result.stderr)")
        var page = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any] ?? [:]
        page["held"] = result.status == 0
        return page
    }

    /// Each viewer's figures in the interval samples of a stats file, by viewer number.
    func viewerFigures(_ stats: String) throws -> [Int: [String: Any]] {
        var figures: [Int: [String: Any]] = [:]
        for line in try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n") {
            guard let sample = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let viewers = sample["viewers"] as? [String: Any],
                  let watching = viewers["watching"] as? [[String: Any]] else { continue }
            for viewer in watching { if let id = viewer["id"] as? Int { figures[id] = viewer } }
        }
        return figures
    }

    @Test func chromiumPlaysTheVideoSceneWithWebCodecsAndALateJoinerStartsAtOnce() throws {
        let server = try XvfbServer(width: 640, height: 360)
        let scene = try Tools.scene(on: server.display)
        defer { _ = try? scene.interrupt() }
        let port = Tools.freePort()
        let served = try serve("http://127.0.0.1:\(port)", display: server.display, seconds: 14)
        #expect(served.link.hasPrefix("http://127.0.0.1:\(port)/?token="), "\(served.link)")
        // The first viewer watches for about 6 s; a second one joins 2 s after it, for about 3 s.
        let first = Thread { _ = try? watch(served.link, frames: 180) }
        first.start()
        try served.run.waitForStderr(containing: "joined")
        Thread.sleep(forTimeInterval: 2)
        let second = try watch(served.link, frames: 90)
        #expect(second["decoder"] as? String == "webcodecs")
        let firstFrame = second["firstFrameAfter"] as? Double ?? .infinity
        #expect(firstFrame <= 300, "a late joiner's first frame came \(firstFrame) ms after it connected")
        try served.run.waitForStderr(containing: " left (", times: 2, timeout: 30)
        let result = try served.run.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let figures = try viewerFigures(served.stats)
        #expect(figures.count == 2, "two viewers reported: \(figures)")
        for (id, viewer) in figures {
            let sent = viewer["sent"] as? Int ?? 0
            let decoded = viewer["decoded"] as? Int ?? 0
            #expect(sent >= 20 && Double(decoded) >= 0.9 * Double(sent), "viewer \(id): \(viewer)")
            let latency = viewer["latency"] as? [String: Any] ?? [:]
            let median = latency["p50"] as? Double ?? 0
            #expect(median > 0 && median < 1_000, "viewer \(id) measured its latency: \(viewer)")
            #expect(viewer["decoder"] as? String == "webcodecs")
        }
        #expect(result.stderr.contains("viewers 2 (most 2 at once, latency p50 "), "\(result.stderr)")
    }

    /// The GPU's encoder (the tests' VA driver) failing 3 s in, software taking over: a page that
    /// plays with Media Source Extensions, which took the stream's parameter sets from the
    /// fragments' header (the GPU's), plays on with software's, each before its keyframe.
    @Test func aPagePlaysOnThroughTheSwitchFromTheGPUsEncoder() throws {
        let server = try XvfbServer(width: 320, height: 240)
        let scene = try Tools.scene(on: server.display)
        defer { _ = try? scene.interrupt() }
        let driver = try FakeVA(failing: ["frame:90"])
        let port = Tools.freePort()
        let served = try serve("http://127.0.0.1:\(port)?name=podium.test", display: server.display, seconds: 14,
                               more: ["--vaapi-device", server.display], environment: driver.environment)
        let link = served.link.replacingOccurrences(of: "127.0.0.1", with: "podium.test")
        // 8 s of pictures, the switch 3 s into the run.
        let page = try watch(link, frames: 240, flags: ["--host-resolver-rules=MAP podium.test 127.0.0.1"])
        #expect(page["decoder"] as? String == "mse", "\(page)")
        let result = try served.run.wait(timeout: 30)
        #expect(result.stderr.contains("encoder h264_vaapi → libx264, by a fault"), "\(result.stderr)")
    }

    /// Plain HTTP to a name that is not local: no WebCodecs, so Media Source Extensions play, and
    /// what the page shows is the screen.
    @Test func plainHTTPOverTheLANPlaysWithMediaSourceExtensions() throws {
        let server = try XvfbServer(width: 640, height: 480)
        let pattern = TestPattern(width: 640, height: 480, seed: 5)
        try Painter(display: server.display).draw(pattern)
        let port = Tools.freePort()
        let served = try serve("http://127.0.0.1:\(port)?name=podium.test", display: server.display, seconds: 12,
                               more: ["--constant-fps", "--no-cursor"])
        let link = served.link.replacingOccurrences(of: "127.0.0.1", with: "podium.test")
        let shot = try Tools.temporaryFolder().appendingPathComponent("shot.png").path
        let page = try watch(link, frames: 60, flags: ["--host-resolver-rules=MAP podium.test 127.0.0.1"],
                             screenshot: shot)
        #expect(page["decoder"] as? String == "mse", "\(page)")
        _ = try served.run.interrupt()
        let rgb = shot + ".rgb"
        let converted = try Tools.run("ffmpeg", ["-v", "error", "-y", "-i", shot, "-vf", "scale=640:480",
                                                 "-f", "rawvideo", "-pix_fmt", "rgb24", rgb])
        #expect(converted.status == 0, "\(converted.stderr)")
        let quality = psnr([UInt8](try Data(contentsOf: URL(fileURLWithPath: rgb))), pattern.rgb)
        #expect(quality >= 30, "the page shows the screen: \(quality) dB")
    }

    /// HTTPS with the certificate Podium makes: the browser has WebCodecs there.
    @Test func httpsWithASelfSignedCertificate() throws {
        let server = try XvfbServer(width: 320, height: 240)
        let config = try Tools.temporaryFolder()
        let port = Tools.freePort()
        let served = try serve("https://127.0.0.1:\(port)", display: server.display, seconds: 10,
                               more: ["--constant-fps"], environment: ["XDG_CONFIG_HOME": config.path])
        #expect(served.link.hasPrefix("https://"))
        let lines = served.run.stderrSoFar.split(separator: "\n")
        let fingerprint = try #require(lines.firstIndex { $0.contains("SHA-256 fingerprint") }.map {
            lines[$0 + 1].split(separator: " ").last.map(String.init) ?? ""
        }, "\(served.run.stderrSoFar)")
        // The link carries it, and the page shows it to compare with the browser's.
        #expect(served.link.hasSuffix("#cert=" + fingerprint.replacingOccurrences(of: ":", with: "")))
        let page = try watch(served.link, frames: 30,
                             until: "document.getElementById('certificate').textContent.includes('\(fingerprint)')",
                             flags: ["--ignore-certificate-errors"])
        #expect(page["decoder"] as? String == "webcodecs", "\(page)")
        _ = try served.run.interrupt()
        let kept = config.appendingPathComponent("podium/viewer-key.pem").path
        let permissions = try FileManager.default.attributesOfItem(atPath: kept)[.posixPermissions] as? Int
        #expect(permissions == 0o600, "the key is its owner's alone")
    }

    /// A wrong token gets 403 (400 for a WebSocket handshake) and nothing else; the page and its
    /// headers come with the right one; nothing else is served.
    @Test func theTokenGuardsThePageAndTheStream() throws {
        let server = try XvfbServer(width: 320, height: 240)
        let port = Tools.freePort()
        let served = try serve("http://127.0.0.1:\(port)", display: server.display, seconds: 8)
        let token = served.link.components(separatedBy: "token=").last ?? ""
        // Status and headers of each request, read off the socket; /stream asks for a WebSocket.
        let script = """
            import socket, sys
            port = int(sys.argv[1])
            for path in sys.argv[2:]:
                upgrade = ("Connection: Upgrade\\r\\nUpgrade: websocket\\r\\nSec-WebSocket-Version: 13\\r\\n"
                           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\n") if path.startswith("/stream") else ""
                with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
                    connection.sendall(f"GET {path} HTTP/1.1\\r\\nHost: 127.0.0.1:{port}\\r\\n{upgrade}\\r\\n".encode())
                    head = b""
                    while b"\\r\\n\\r\\n" not in head:
                        chunk = connection.recv(4096)
                        if not chunk:
                            break
                        head += chunk
                lines = head.split(b"\\r\\n\\r\\n")[0].decode().split("\\r\\n")
                headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
                print(lines[0].split(" ")[1], headers.get("content-security-policy", "-").split(";")[0],
                      headers.get("referrer-policy", "-"), headers.get("cache-control", "-"))
            """
        let result = try Tools.run("python3", ["-c", script, "\(port)", "/?token=\(token)", "/?token=wrong", "/",
                                               "/stream?token=wrong", "/viewer.js"])
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(result.stdout) \(result.stderr)")
        #expect(lines.first == "200 default-src 'none' no-referrer no-store")
        // A refused WebSocket handshake is answered 400 by Hummingbird, whatever the reason: never 101.
        #expect(lines.dropFirst().map { $0.prefix(3) } == ["403", "403", "400", "404"], "\(lines)")
        let run = try served.run.wait(timeout: 30)
        #expect(run.status == 0)
        #expect(run.stderr.contains("viewers 0 (most 0 at once)"), "nobody watched: \(run.stderr)")
        #expect(run.stderr.components(separatedBy: token).count - 1 == 1, "the token is printed in the link only")
    }

    /// A WebSocket client that says hello and then never reads: it falls behind and skips, while
    /// the browser beside it and the recording lose nothing, and Podium's memory stays put.
    @Test func aViewerThatNeverReadsCostsNobodyElseAFrame() throws {
        let server = try XvfbServer(width: 640, height: 360)
        let scene = try Tools.scene(on: server.display)
        defer { _ = try? scene.interrupt() }
        let folder = try Tools.temporaryFolder()
        let recording = folder.appendingPathComponent("all.mkv").path
        let port = Tools.freePort()
        let served = try serve("http://127.0.0.1:\(port)", display: server.display, seconds: 12,
                               more: ["--to", recording])
        let stalled = try Tools.start(Tools.repository.appendingPathComponent("Scripts/viewer-client").path,
                                      [served.link, "--stall", "--seconds", "9"])
        try served.run.waitForStderr(containing: "joined")
        let rss = { () -> Int in
            let status = (try? String(contentsOfFile: "/proc/\(served.run.pid)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        Thread.sleep(forTimeInterval: 1)
        let early = rss()
        let page = try watch(served.link, frames: 180)
        let late = rss()
        #expect(page["decoder"] as? String == "webcodecs")
        #expect(try stalled.wait(timeout: 30).stdout.hasPrefix("HTTP/1.1 101"), "the stalled client was let in")
        let result = try served.run.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let figures = try viewerFigures(served.stats)
        let browser = figures.values.first {
            $0["decoder"] as? String == "webcodecs" && ($0["decoded"] as? Int ?? 0) > 0
        }
        let stalledFigures = figures.values.first { ($0["decoded"] as? Int ?? 0) == 0 }
        #expect(browser?["skipped"] as? Int == 0, "the browser lost nothing: \(figures)")
        #expect((stalledFigures?["skipped"] as? Int ?? 0) > 30, "the stalled client skipped: \(figures)")
        let lines = try String(contentsOfFile: served.stats, encoding: .utf8).split(separator: "\n")
        let summary = try JSONSerialization.jsonObject(with: Data((lines.last ?? "").utf8)) as? [String: Any] ?? [:]
        let drops = summary["drops"] as? [String: Any] ?? [:]
        // A stalled viewer that held anyone up would cost a burst of frames; one frame replaced
        // before the encoder took it is Chromium taking both cores for a moment (seen once in CI).
        #expect(drops["sinks"] as? Int == 0 && (drops["encoder"] as? Int ?? 99) <= 1, "\(drops)")
        let encoded = summary["frames"] as? Int ?? 0
        #expect(abs(try Tools.probe(recording).frames - encoded) <= 1, "the recording has every frame")
        #expect(late - early < 40_000, "memory stays put: \(early) kB, then \(late) kB")
    }

    /// With several renditions a small window gets the small one, and the link can fix another.
    @Test func aViewerGetsTheRenditionThatFitsItsWindow() throws {
        let server = try XvfbServer(width: 640, height: 360)
        let port = Tools.freePort()
        let served = try serve("http://127.0.0.1:\(port)?ladder=360p,180p", display: server.display, seconds: 10,
                               more: ["--constant-fps"])
        let small = try watch(served.link, frames: 20, size: "320x180")
        #expect(small["rendition"] as? String == "180p", "\(small)")
        #expect(small["width"] as? Int == 320)
        let fixed = try watch(served.link + "&rendition=360p", frames: 20, size: "320x180")
        #expect(fixed["rendition"] as? String == "360p", "\(fixed)")
        let large = try watch(served.link, frames: 20, size: "640x360")
        #expect(large["rendition"] as? String == "360p", "\(large)")
        _ = try served.run.interrupt()
    }

    /// A viewer whose network is too slow for its rendition steps down to a smaller one.
    @Test func aSlowViewerStepsDownTheLadder() throws {
        let server = try XvfbServer(width: 640, height: 360)
        let scene = try Tools.scene(on: server.display)
        defer { _ = try? scene.interrupt() }
        let port = Tools.freePort()
        let served = try serve("http://127.0.0.1:\(port)?ladder=360p,180p", display: server.display, seconds: 11)
        // 10 kB/s: a tenth of what the 360p rendition needs.
        let slow = try Tools.run(Tools.repository.appendingPathComponent("Scripts/viewer-client").path,
                                 [served.link, "--rate", "10000", "--seconds", "8"], timeout: 30)
        #expect(slow.stdout.hasPrefix("HTTP/1.1 101"), "\(slow.stdout) \(slow.stderr)")
        let result = try served.run.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let viewer = try viewerFigures(served.stats).values.first ?? [:]
        #expect(viewer["rendition"] as? String == "180p", "it moved to the small rendition: \(viewer)")
        #expect((viewer["skipped"] as? Int ?? 0) > 0, "\(viewer)")
    }

    /// The page reconnects by itself when the stream comes back (the same link: a token chosen).
    @Test func thePageReconnectsWhenTheStreamComesBack() throws {
        let server = try XvfbServer(width: 320, height: 240)
        let port = Tools.freePort()
        let viewer = "http://127.0.0.1:\(port)?token=same-token-again"
        let first = try serve(viewer, display: server.display, seconds: 4, more: ["--constant-fps"])
        let connections = Atomic<Int>(0)
        let watching = Thread {
            let seen = try? watch(first.link, frames: 1, until: "window.podium.connections >= 2 && "
                                  + "window.podium.state === 'playing'")
            connections.store(seen?["connections"] as? Int ?? 0, ordering: .relaxed)
        }
        watching.start()
        #expect(try first.run.wait(timeout: 30).status == 0)
        let second = try serve(viewer, display: server.display, seconds: 20, more: ["--constant-fps"])
        let deadline = Date().addingTimeInterval(30)
        while !watching.isFinished && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        _ = try second.run.interrupt()
        #expect(connections.load(ordering: .relaxed) == 2, "the page played again on its second connection")
    }

    /// The presenter freezes the mirror (space in its window): the page says so.
    @Test func thePageSaysWhenThePresenterFreezesTheMirror() throws {
        let source = try XvfbServer(width: 320, height: 240)
        let screen = try XvfbServer(width: 320, height: 240)
        let port = Tools.freePort()
        let run = try Tools.start(Tools.podium.path, ["mirror", "--display", source.display, "--on-display",
                                                     screen.display, "--duration", "30s",
                                                     "--to", "http://127.0.0.1:\(port)?token=freeze-and-tell-them"])
        try run.waitForStderr(containing: "viewers open ")
        let status = "document.getElementById('status')"
        let told = Atomic<Bool>(false)
        let watching = Thread {
            let page = try? watch("http://127.0.0.1:\(port)/?token=freeze-and-tell-them", frames: 1,
                                  until: "!\(status).hidden && \(status).textContent === 'Paused by the presenter'")
            told.store(page?["held"] as? Bool == true, ordering: .relaxed)
        }
        watching.start()
        try run.waitForStderr(containing: "joined")
        Thread.sleep(forTimeInterval: 1)
        try Painter(display: screen.display).pressKey(keysym: 0x20)
        try run.waitForStderr(containing: "frozen")
        let deadline = Date().addingTimeInterval(30)
        while !watching.isFinished && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        let said = told.load(ordering: .relaxed)
        #expect(said, "the page said 'Paused by the presenter'")
        let result = try run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func aPortInUseIsNamed() throws {
        let server = try XvfbServer(width: 320, height: 240)
        let port = Tools.freePort()
        let first = try serve("http://127.0.0.1:\(port)", display: server.display, seconds: 10)
        let folder = try Tools.temporaryFolder()
        let second = try Tools.podium(["stream", "--duration", "2s", "--to", "http://127.0.0.1:\(port)",
                                       "--to", folder.appendingPathComponent("hls/live.m3u8").path],
                                      display: server.display)
        #expect(second.status == 69, "\(second.stderr)")
        #expect(second.stderr.contains("cannot listen on port \(port) (it is in use)"), "\(second.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "nothing created")
        _ = try first.run.interrupt()
    }
}
