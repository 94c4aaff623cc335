import Foundation
import PodiumTestSupport
import Testing

/// `podium extend`: a monitor that exists only for the run, on Xorg (the dummy driver, whose
/// screen grows) and on a headless sway; a window put on it is in the stream, and the viewer's
/// page is its pointer and keys; it goes when the run ends. Xvfb, whose screen is fixed, says so.
/// A killed run's monitor and GNOME's: podiumTests' `ExtendTests`.
@Suite(.serialized, .programThreads) struct ExtendTests {
    let folder: URL

    init() throws { folder = try Tools.temporaryFolder() }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    @Test func anXorgScreenGrowsAMonitorThatAWindowOnItShowsIn() async throws {
        let server = try XorgServer(width: 1024, height: 768)
        let before = try server.monitors()
        let recording = path("extended.mkv")
        let run = ProgramRun.start(["extend", "640x480@30", "--display", server.display,
                                    "--to", recording, "-t", "4s"])
        try await run.waitForStderr(containing: "capturing")
        let monitors = try server.monitors()
        // A spare output of the dummy driver's, driven in a mode of Podium's.
        let ours = monitors.contains { $0.hasPrefix("+DUMMY1 640/") && $0.contains("+1024+0 ") }
        #expect(monitors.count == 2 && ours, "\(monitors)")
        #expect(try server.screenSize() == "1664x768")
        // A window on the new monitor, as one dragged there.
        let window = try TestWindow(display: server.display, title: "Notes", x: 1024 + 100, y: 100, width: 300,
                                    height: 200, rgb: 0x2266CC)
        try window.waitUntilShown()
        let result = try await run.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("took the monitor DUMMY1 away"), "\(result.stderr)")
        #expect(try server.monitors() == before)
        #expect(try server.screenSize() == "1024x768")

        let probe = try Tools.probe(recording)
        #expect(probe.width == 640 && probe.height == 480)
        let last = try #require(try Tools.rgbFrames(recording, size: (width: 320, height: 240)).last)
        #expect(RGB.near(RGB.pixel(last.pixels, 125, 100, width: 320), (0x22, 0x66, 0xCC), within: 11),
                "the window on the new monitor")
        #expect(RGB.near(RGB.pixel(last.pixels, 20, 20, width: 320), (0, 0, 0), within: 11), "the root beside it")
    }

    @Test func xvfbAndBadRequestsAreRefusedWithNothingMade() async throws {
        let xvfb = try XvfbServer(width: 640, height: 480)
        let fixed = try await ProgramRun.podium(["extend", "--display", xvfb.display, "--to", path("never.mkv")])
        #expect(fixed.status == 69, "\(fixed)")
        #expect(fixed.stderr.contains("cannot grow its screen to 2560x1080 for a 1920x1080 monitor")
                && fixed.stderr.contains("a fixed screen, as Xvfb's is"), "\(fixed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path("never.mkv")))

        let server = try XorgServer(width: 800, height: 600)
        let before = try server.monitors()
        // Refused as the monitor is made (the command line's own refusals: RefusalTests).
        let cases: [([String], String)] = [
            (["--right-of", "HDMI-9"], "--right-of 'HDMI-9': no such monitor; monitors here: 0 DUMMY0"),
            (["--left-of", "DUMMY0"], "--left-of 'DUMMY0': an X screen grows right and down only, and DUMMY0 is at "
                + "its left edge; use --right-of or --below"),
            (["--monitor-scale", "2"], "--monitor-scale 2.0: an X screen has one scale for all its monitors"),
        ]
        for (arguments, said) in cases {
            let result = try await ProgramRun.podium(["extend"] + arguments
                                                     + ["--display", server.display, "--to", path("never.mkv")])
            #expect(result.status == 64, "\(arguments): \(result)")
            #expect(result.stderr.contains(said), "\(arguments): \(result.stderr)")
        }
        #expect(try server.monitors() == before)
        #expect(!FileManager.default.fileExists(atPath: path("never.mkv")))
    }

    /// On sway, a headless output; a window moved onto it shows in the stream. sway 1.7 (Debian
    /// 12's) cannot take a headless output away: the next run takes the same one again.
    @Test func aSwayOutputIsMadeAndTakenAgainByTheNextRun() async throws {
        let sway = try SwayServer(width: 1280, height: 720)
        let recording = path("sway.mkv")
        let run = ProgramRun.start(["extend", "800x600", "--display", sway.display,
                                    "--to", recording, "-t", "5s"])
        try await run.waitForStderr(containing: "capturing")
        let outputs = try sway.swaymsg("-t", "get_outputs")
        #expect(outputs.contains("\"HEADLESS-2\"") && outputs.contains("\"width\": 800"), "\(outputs)")
        try sway.openWindow("Notes", colour: "2266cc", at: (x: 1280 + 100, y: 100, width: 300, height: 200))
        let result = try await run.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let last = try #require(try Tools.rgbFrames(recording, size: (width: 400, height: 300)).last)
        #expect(RGB.near(RGB.pixel(last.pixels, 125, 100, width: 400), (0x22, 0x66, 0xCC), within: 11),
                "the window on the new output")

        let again = try await ProgramRun.podium(["extend", "800x600", "--display", sway.display,
                                                 "--to", path("again.mkv"), "-t", "1s"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("a new monitor, HEADLESS-2"), "the same output again: \(again.stderr)")
        #expect(!(try sway.swaymsg("-t", "get_outputs")).contains("HEADLESS-3"))
    }

    /// `--allow-input`: a tablet-sized Chromium's click and keys on the viewer's picture land on
    /// the window under them on the new monitor (Shift given for a capital); the viewer's own
    /// link sends nothing.
    @Test func theViewersPageIsTheExtraScreensPointerAndKeys() async throws {
        let server = try XorgServer(width: 800, height: 600)
        let port = Tools.freePort()
        let run = ProgramRun.start(["extend", "640x480", "--display", server.display, "--allow-input",
                                    "--to", "http://127.0.0.1:\(port)", "-t", "60s"])
        defer { run.stop() }
        try await run.waitForStderr(containing: "keep its link to yourself")
        let words = run.stderrSoFar.split(whereSeparator: \.isWhitespace)
        let link = try #require(words.first { $0.contains("&input=") }.map(String.init), "\(run.stderrSoFar)")
        let viewerLink = try #require(words.first { $0.contains("?token=") && !$0.contains("input=") })
        // The monitor's middle, (1120, 240) of the screen, is (100, 100) of this window.
        let window = try TestWindow(display: server.display, title: "Notes", x: 1020, y: 140, width: 200, height: 200,
                                    rgb: 0x2266CC)
        try window.waitUntilShown()
        window.listenForInput()

        let viewerToken = try #require(viewerLink.split(separator: "=").last)
        let refused = try Tools.httpStatus("http://127.0.0.1:\(port)/input?token=\(viewerToken)", body: #"[["b",1,1]]"#)
        #expect(refused == 403, "a viewer's token sends no input")
        let inputToken = try #require(link.split(separator: "=").last)
        let input = "http://127.0.0.1:\(port)/input?token=\(inputToken)"
        let tooMany = Array(repeating: #"["m",0.5,0.5]"#, count: 129).joined(separator: ",")
        #expect(try Tools.httpStatus(input, body: #"{"seq":1,"events":[\#(tooMany)]}"#) == 400,
                "at most 128 events a request")
        let browsed = try Tools.run(Tools.repository.appendingPathComponent("Scripts/browse").path,
                                    [link, "--size", "640x480", "--timeout", "30",
                                     "--until", "window.podium && window.podium.painted >= 1",
                                     "--value", "window.podium.painted", "--click", "body", "--type", "aB",
                                     "--then", "window.podiumInput.sent >= 8"],
                                    timeout: 60)
        #expect(browsed.status == 0, "\(browsed.stdout) \(browsed.stderr)")
        let heard = window.waitForInput(4)
        let keycodes = try Tools.run("xmodmap", ["-display", server.display, "-pke"]).stdout
            .split(separator: "\n").reduce(into: [String: String]()) { (codes: inout [String: String], line) in
                let fields = line.split(separator: " ")
                if fields.count > 3, fields[0] == "keycode", codes[String(fields[3])] == nil {
                    codes[String(fields[3])] = String(fields[1])
                }
            }
        let (a, b, shift) = (keycodes["a"] ?? "?", keycodes["b"] ?? "?", keycodes["Shift_L"] ?? "?")
        #expect(heard == ["click 1 at 100,100", "key \(a) state 0", "key \(shift) state 0", "key \(b) state 1"],
                "\(heard)")

        // Batches the page did not send. A captured one sent again is refused (the page numbers
        // its batches by its clock's microseconds); keys while the focus (here, the pointer) is
        // off the new monitor go nowhere; a key left down is let go 3 s after the last batch.
        #expect(try Tools.httpStatus(input, body: #"{"seq":1,"events":[["m",0.5,0.5]]}"#) == 409)
        let elsewhere = try TestWindow(display: server.display, title: "Elsewhere", x: 0, y: 0, width: 200,
                                       height: 200, rgb: 0x404040)
        try elsewhere.waitUntilShown()
        elsewhere.listenForInput()
        window.listenForInput(releases: true)
        _ = try Tools.start("xdotool", ["mousemove", "100", "100"], environment: ["DISPLAY": server.display])
            .wait(timeout: 10)
        let next = UInt64(Date().timeIntervalSince1970 * 1e6) + 60_000_000
        #expect(try Tools.httpStatus(input, body: #"{"seq":\#(next),"events":[["k","c",1],["k","c",0]]}"#) == 204)
        #expect(elsewhere.waitForInput(1, timeout: 1).isEmpty, "no key reached the presenter's own screen")
        #expect(try Tools.httpStatus(input, body: #"{"seq":\#(next + 1),"events":[["m",0.5,0.5],["k","c",1]]}"#)
                == 204)
        let c = keycodes["c"] ?? "?"
        #expect(window.waitForInput(1, timeout: 2) == ["key \(c) state 0"])
        // Held, it repeats (the X server's autorepeat) until the page has been quiet for 3 s.
        try await Task.sleep(for: .seconds(4.5))
        let repeated = window.waitForInput(100_000, timeout: 0.2)
        #expect(repeated.last == "release \(c)" && repeated.count >= 4, "\(repeated)")
        #expect(window.waitForInput(1, timeout: 1.5).isEmpty, "the key held was let go: it repeats no more")
    }

    /// `--allow-input` on sway: a click on the page focuses the window under it on the new output
    /// (wlroots' virtual pointer, bound to that output), and the keys typed reach it (the virtual
    /// keyboard; Shift for a capital).
    @Test func aSwayOutputTakesTheViewersPointerAndKeys() async throws {
        let sway = try SwayServer(width: 1280, height: 720)
        let shared = folder.appendingPathComponent("typed")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o777])
        let typed = shared.appendingPathComponent("text").path
        try sway.openWindow("Elsewhere", colour: "404040", at: (x: 100, y: 100, width: 300, height: 200))
        let port = Tools.freePort()
        let run = ProgramRun.start(["extend", "640x480", "--display", sway.display, "--allow-input",
                                    "--to", "http://127.0.0.1:\(port)", "-t", "60s"])
        defer { run.stop() }
        try await run.waitForStderr(containing: "keep its link to yourself")
        let link = try #require(run.stderrSoFar.split(whereSeparator: \.isWhitespace)
            .first { $0.contains("&input=") }.map(String.init))
        // The new output's middle, (1280 + 320, 240) of the layout, within this window.
        try sway.openWindow("Typed", colour: "2266cc", at: (x: 1280 + 220, y: 140, width: 200, height: 200),
                            command: "sh -c 'cat > \(typed)'")
        try sway.swaymsg("[title=\"Elsewhere\"] focus")
        let browsed = try Tools.run(Tools.repository.appendingPathComponent("Scripts/browse").path,
                                    [link, "--size", "640x480", "--timeout", "30",
                                     "--until", "window.podium && window.podium.painted >= 1",
                                     "--value", "window.podium.painted", "--click", "body", "--type", "aB\n",
                                     "--then", "window.podiumInput.sent >= 10"],
                                    timeout: 60)
        #expect(browsed.status == 0, "\(browsed.stdout) \(browsed.stderr)")
        try await Task.sleep(for: .seconds(0.5))
        let tree = try JSONSerialization.jsonObject(with: Data(try sway.swaymsg("-t", "get_tree").utf8))
        func focused(_ node: Any) -> String? {
            guard let node = node as? [String: Any] else { return nil }
            if node["focused"] as? Bool == true { return node["name"] as? String }
            let children = (node["nodes"] as? [Any] ?? []) + (node["floating_nodes"] as? [Any] ?? [])
            return children.lazy.compactMap(focused).first
        }
        #expect(focused(tree) == "Typed", "the click focused the window on the new output")
        #expect((try? String(contentsOfFile: typed, encoding: .utf8)) == "aB\n", "the keys reached it")
    }
}
