import Foundation
import PodiumTestSupport
import Testing

/// `podium mirror` from display A to display B, checked by grabbing B with `ffmpeg -f x11grab`.
@Suite(.serialized, .programThreads) struct MirrorTests {
    /// Mirrors `pattern` (drawn on a fresh A) onto a fresh B of `target` size and returns B's pixels.
    func mirror(_ pattern: TestPattern, onto target: (width: Int, height: Int),
                arguments: [String] = []) async throws -> [UInt8] {
        let source = try XvfbServer(width: pattern.width, height: pattern.height)
        let screen = try XvfbServer(width: target.width, height: target.height)
        try Painter(display: source.display).draw(pattern)
        let run = ProgramRun.start(["mirror", "--display", source.display, "--on-display", screen.display,
                                    "--no-cursor", "--duration", "20s"] + arguments)
        try await run.waitForStderr(containing: "showing on")
        try await Task.sleep(for: .seconds(1.5))
        let shown = try Tools.grabScreen(screen.display, width: target.width, height: target.height)
        let result = try await run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("presented "))
        return shown
    }

    @Test func sameSizeIsPixelExact() async throws {
        let pattern = TestPattern(width: 320, height: 240, seed: 4)
        let shown = try await mirror(pattern, onto: (320, 240))
        #expect(difference(shown, pattern.bgra) == nil)
    }

    /// After the first picture, a frame redraws only the rows it changed (scaled, or copied 1:1):
    /// after a few small changes the window holds exactly what a fresh mirror of the final screen
    /// draws whole.
    @Test(arguments: [(640, 480), (480, 360)])
    func changedRowsBuildTheWholePicture(width: Int, height: Int) async throws {
        let source = try XvfbServer(width: 640, height: 480)
        let screen = try XvfbServer(width: width, height: height)
        let painter = try Painter(display: source.display)
        try painter.draw(TestPattern(width: 640, height: 480, seed: 8))
        func startMirror() async throws -> ProgramRun {
            let run = ProgramRun.start(["mirror", "--display", source.display, "--on-display", screen.display,
                                        "--no-cursor", "--duration", "20s"])
            try await run.waitForStderr(containing: "showing on")
            try await Task.sleep(for: .seconds(1))
            return run
        }
        let changing = try await startMirror()
        let before = try Tools.grabScreen(screen.display, width: width, height: height)
        for (index, y) in [0, 101, 250, 477].enumerated() {
            try painter.draw(TestPattern(width: 200, height: 3, seed: 20 + index), x: 37 * index, y: y)
            try await Task.sleep(for: .seconds(0.15))
        }
        try await Task.sleep(for: .seconds(1))
        let changed = try Tools.grabScreen(screen.display, width: width, height: height)
        #expect(try await changing.interrupt().status == 0)
        let fresh = try await startMirror()
        let whole = try Tools.grabScreen(screen.display, width: width, height: height)
        #expect(try await fresh.interrupt().status == 0)
        #expect(difference(changed, before) != nil, "the changes reached the window")
        #expect(difference(changed, whole) == nil)
    }

    @Test func containLeavesBarsOfTheBackground() async throws {
        let pattern = TestPattern(width: 320, height: 180, seed: 5)
        let shown = try await mirror(pattern, onto: (320, 240), arguments: ["--background", "#0000ff"])
        let blue: [UInt8] = [255, 0, 0, 255]
        let bar = Array([[UInt8]](repeating: blue, count: 320 * 30).joined())
        #expect(difference(Array(shown[0..<(320 * 30 * 4)]), bar) == nil, "30 rows of bar above")
        #expect(difference(Array(shown[(320 * 210 * 4)...]), bar) == nil, "30 rows of bar below")
        #expect(difference(Array(shown[(320 * 30 * 4)..<(320 * 210 * 4)]), pattern.bgra) == nil,
                "the picture 1:1 between them")
    }

    @Test func downscaledMatchesFFmpegsScaling() async throws {
        let pattern = TestPattern(width: 1920, height: 1080, seed: 6)
        let shown = try await mirror(pattern, onto: (1280, 720))
        // FFmpeg scales the same picture; compare in YUV like the encoder tests.
        let folder = try Tools.temporaryFolder()
        let file = folder.appendingPathComponent("shown.bgra")
        try Data(shown).write(to: file)
        let converted = try Tools.run("ffmpeg", ["-v", "error", "-f", "rawvideo", "-pix_fmt", "bgra", "-s", "1280x720",
                                                 "-i", file.path, "-f", "rawvideo", "-pix_fmt", "yuv420p",
                                                 folder.appendingPathComponent("shown.yuv").path])
        #expect(converted.status == 0)
        let shownYUV = [UInt8](try Data(contentsOf: folder.appendingPathComponent("shown.yuv")))
        let quality = psnr(shownYUV, try Tools.reference(pattern, width: 1280, height: 720))
        #expect(quality >= 30, "PSNR \(quality) dB")
    }

    @Test(arguments: [("cover", 240 * 4 / 3), ("stretch", 0), ("none", 0), ("integer", 0)])
    func otherFitModesFillAsExpected(mode: String, _ unused: Int) async throws {
        // A 16:9 picture on a 4:3 screen with a blue background: where are the bars?
        let pattern = TestPattern(width: 320, height: 180, seed: 7)
        let shown = try await mirror(pattern, onto: (320, 240), arguments: ["--fit", mode, "--background", "#0000ff"])
        func isBlue(_ x: Int, _ y: Int) -> Bool {
            Array(shown[((y * 320 + x) * 4)..<((y * 320 + x) * 4 + 3)]) == [255, 0, 0]
        }
        switch mode {
        case "cover", "stretch":
            #expect(!isBlue(0, 0) && !isBlue(319, 239) && !isBlue(160, 5), "\(mode) fills the screen")
        case "none", "integer":
            // 1:1 (integer factor 1 here), centred: bars above and below, none at the sides.
            #expect(isBlue(160, 29) && !isBlue(160, 30) && !isBlue(0, 120) && !isBlue(160, 209) && isBlue(160, 210))
            #expect(difference(Array(shown[(320 * 30 * 4)..<(320 * 210 * 4)]), pattern.bgra) == nil)
        default:
            Issue.record("unknown mode")
        }
    }

    @Test func recordsWhileMirroring() async throws {
        let source = try XvfbServer(width: 320, height: 240)
        let screen = try XvfbServer(width: 320, height: 240)
        let pattern = TestPattern(width: 320, height: 240, seed: 8)
        try Painter(display: source.display).draw(pattern)
        let folder = try Tools.temporaryFolder()
        let output = folder.appendingPathComponent("talk.mkv").path
        let stats = folder.appendingPathComponent("stats.jsonl").path
        let result = try await ProgramRun.podium(["mirror", "--display", source.display, "--on-display", screen.display,
                                                  "--no-cursor", "--constant-fps", "--frames", "45",
                                                  "--stats-json", stats, "--to", output])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n").last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any])
        let shown = object["presentedFPS"] as? Double ?? 0
        #expect(shown > 20, "the window kept showing frames while recording: \(shown) fps")
        #expect(try Tools.probe(output).frames == 45)
        #expect(psnr(try Tools.decodeFrame(output, index: 20), try Tools.reference(pattern)) >= 40)
    }

    @Test func spaceFreezesAndResumesAndQQuits() async throws {
        let source = try XvfbServer(width: 320, height: 240)
        let screen = try XvfbServer(width: 320, height: 240)
        let first = TestPattern(width: 320, height: 240, seed: 1)
        let second = TestPattern(width: 320, height: 240, seed: 9)
        let painter = try Painter(display: source.display)
        try painter.draw(first)
        let run = ProgramRun.start(["mirror", "--display", source.display, "--on-display", screen.display,
                                    "--no-cursor", "--duration", "30s"])
        try await run.waitForStderr(containing: "showing on")
        try await Task.sleep(for: .seconds(1))
        let keys = try Painter(display: screen.display)
        try keys.pressKey(keysym: 0x20)
        try await run.waitForStderr(containing: "frozen")
        try painter.draw(second)
        try await Task.sleep(for: .seconds(0.7))
        #expect(difference(try Tools.grabScreen(screen.display, width: 320, height: 240), first.bgra) == nil,
                "B keeps the frozen picture")
        try keys.pressKey(keysym: 0x20)
        try await run.waitForStderr(containing: "picture frozen → live, by window")
        try await Task.sleep(for: .seconds(0.7))
        #expect(difference(try Tools.grabScreen(screen.display, width: 320, height: 240), second.bgra) == nil,
                "B follows A again")
        // The terminal's keys, in the window: `+` is on the `=` key; nothing is encoded for `<`.
        try keys.pressKey(keysym: 0x3D)
        try await run.waitForStderr(containing: "fps 30 → 48, by window")
        try keys.pressKey(keysym: 0x2C)
        try await run.waitForStderr(containing: "nothing is encoded: no bit rate to change")
        try keys.pressKey(keysym: 0x71)
        let result = try await run.wait(timeout: 10)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("quit from the window"))
    }
}

/// Picture-in-picture, hot-plug and resolution changes.
@Suite(.serialized, .programThreads) struct MirrorFollowsTests {
    static let red: (UInt8, UInt8, UInt8) = (0, 0, 255)
    static let blue: (UInt8, UInt8, UInt8) = (255, 0, 0)

    /// The smallest rectangle holding every pixel of `color` in a BGRA picture `width` wide, and
    /// whether every pixel inside it has that colour. Scaling may move a channel by a step or two.
    func box(of color: (UInt8, UInt8, UInt8), in pixels: [UInt8], width: Int) -> (rect: [Int], solid: Bool)? {
        func near(_ a: UInt8, _ b: UInt8) -> Bool { abs(Int(a) - Int(b)) <= 2 }
        var (minX, minY, maxX, maxY, count) = (Int.max, Int.max, -1, -1, 0)
        for index in stride(from: 0, to: pixels.count, by: 4)
        where near(pixels[index], color.0) && near(pixels[index + 1], color.1) && near(pixels[index + 2], color.2) {
            let (x, y) = ((index / 4) % width, (index / 4) / width)
            (minX, minY, maxX, maxY, count) = (min(minX, x), min(minY, y), max(maxX, x), max(maxY, y), count + 1)
        }
        guard count > 0 else { return nil }
        let rect = [minX, minY, maxX - minX + 1, maxY - minY + 1]
        return (rect, count == rect[2] * rect[3])
    }

    /// Starts mirroring a red 320x240 display A onto a fresh 640x480 display B.
    func startPictureInPicture(
        _ arguments: [String]
    ) async throws -> (ProgramRun, (source: XvfbServer, target: XvfbServer)) {
        let source = try XvfbServer(width: 320, height: 240)
        let screen = try XvfbServer(width: 640, height: 480)
        try Painter(display: source.display).fill(x: 0, y: 0, width: 320, height: 240, bgra: Self.red)
        let run = ProgramRun.start(["mirror", "--display", source.display, "--on-display", screen.display,
                                    "--no-cursor", "--duration", "30s"] + arguments)
        try await run.waitForStderr(containing: "showing on")
        try await Task.sleep(for: .seconds(1))
        return (run, (source, screen))
    }

    @Test(arguments: [
        (["--pip"], [468, 348, 160, 120]),
        (["--pip", "top-left", "--pip-size", "200x150"], [12, 12, 200, 150]),
    ])
    func pictureInPictureSitsInItsCorner(_ arguments: [String], _ expected: [Int]) async throws {
        // A quarter of 640 wide by default, 4:3 like the picture; the margin is 480 / 40 = 12.
        let (run, servers) = try await startPictureInPicture(arguments)
        let found = box(of: Self.red, in: try Tools.grabScreen(servers.target.display, width: 640, height: 480),
                        width: 640)
        let shown = try #require(found)
        #expect(shown.rect == expected)
        #expect(shown.solid)
        #expect(try await run.interrupt().status == 0)
    }

    @Test func pictureInPictureMovesAndResizesWithTheMouse() async throws {
        let (run, servers) = try await startPictureInPicture(["--pip", "top-left", "--pip-size", "200x150"])
        let screen = servers.target
        let mouse = try Painter(display: screen.display)
        try mouse.drag(from: (112, 87), to: (162, 117), windowOrigin: (12, 12))
        try await Task.sleep(for: .seconds(0.7))
        #expect(box(of: Self.red, in: try Tools.grabScreen(screen.display, width: 640, height: 480),
                    width: 640)?.rect == [62, 42, 200, 150], "moved by (50, 30)")
        // The bottom-right corner resizes, keeping 4:3.
        try mouse.drag(from: (258, 188), to: (298, 188), windowOrigin: (62, 42))
        try await Task.sleep(for: .seconds(0.7))
        #expect(box(of: Self.red, in: try Tools.grabScreen(screen.display, width: 640, height: 480),
                    width: 640)?.rect == [62, 42, 240, 180], "40 wider, 30 taller")
        try mouse.drag(from: (298, 218), to: (0, 0), windowOrigin: (62, 42))
        try await Task.sleep(for: .seconds(0.7))
        #expect(box(of: Self.red, in: try Tools.grabScreen(screen.display, width: 640, height: 480),
                    width: 640)?.rect == [62, 42, 85, 64], "no side under 64")
        #expect(try await run.interrupt().status == 0)
    }

    @Test func waitsForTheTargetDisplayAndFollowsItThroughRestarts() async throws {
        let source = try XvfbServer(width: 320, height: 240)
        try Painter(display: source.display).fill(x: 0, y: 0, width: 320, height: 240, bgra: Self.red)
        let target = XvfbServer.unusedDisplay()
        let run = ProgramRun.start(["mirror", "--display", source.display, "--on-display", target,
                                    "--no-cursor", "--duration", "60s"])
        try await run.waitForStderr(containing: "\(target) is not up")
        for time in 1...2 {
            var screen: XvfbServer? = try XvfbServer(width: 320, height: 240, display: target)
            let started = Date()
            try await run.waitForStderr(containing: "showing on", times: time, timeout: 10)
            #expect(Date().timeIntervalSince(started) < 2, "the window appears within 2 s")
            try await Task.sleep(for: .seconds(0.7))
            let shown = try Tools.grabScreen(target, width: 320, height: 240)
            #expect(box(of: Self.red, in: shown, width: 320)?.rect == [0, 0, 320, 240], "mirroring, time \(time)")
            screen = nil
            try await run.waitForStderr(containing: "\(target) is not up", times: time + 1)
            #expect(run.isRunning, "still waiting, without error")
            _ = screen
        }
        let result = try await run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func followsTheCapturedMonitorThroughAResolutionChange() async throws {
        let source = try XvfbServer(width: 640, height: 480)
        let screen = try XvfbServer(width: 320, height: 240)
        let painter = try Painter(display: source.display)
        try painter.fill(x: 0, y: 0, width: 640, height: 480, bgra: Self.red)
        try Tools.xrandr(source.display, "--newmode", "podium-small", "6", "320", "336", "368", "400",
                         "240", "243", "247", "250")
        try Tools.xrandr(source.display, "--addmode", "screen", "podium-small")
        let folder = try Tools.temporaryFolder()
        let recording = folder.appendingPathComponent("talk.mkv").path
        let run = ProgramRun.start(["mirror", "--display", source.display, "--on-display", screen.display,
                                    "--no-cursor", "--duration", "30s", "--to", recording])
        try await run.waitForStderr(containing: "showing on")
        try await Task.sleep(for: .seconds(0.5))
        try Tools.xrandr(source.display, "--output", "screen", "--mode", "podium-small")
        try await run.waitForStderr(containing: "is now 320x240")
        try painter.fill(x: 0, y: 0, width: 320, height: 240, bgra: Self.blue)
        try await Task.sleep(for: .seconds(1))
        let shown = try Tools.grabScreen(screen.display, width: 320, height: 240)
        #expect(box(of: Self.blue, in: shown, width: 320)?.rect == [0, 0, 320, 240],
                "B shows the new 320x240 picture 1:1")
        let result = try await run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")
        // The recording keeps its size; the smaller picture fills it (same aspect).
        let probe = try Tools.probe(recording)
        #expect(probe.width == 640 && probe.height == 480)
        let last = try Tools.decodeFrame(recording, index: probe.frames - 1)
        let blue = try Tools.reference(TestPattern.solid(width: 640, height: 480, bgra: Self.blue))
        #expect(psnr(last, blue) >= 35)
    }
}

extension MirrorFollowsTests {
    /// Virtual RandR monitors on one display: capture the left half, and wait for a monitor on the right.
    /// A name RandR does not know yet (a projector that will come as a virtual monitor, or a
    /// typo): Podium says what it waits for and what is there, and shows once it appears.
    @Test func waitsForAMonitorByANameNotKnownYet() async throws {
        let server = try XvfbServer(width: 640, height: 240)
        try Painter(display: server.display).fill(x: 0, y: 0, width: 320, height: 240, bgra: Self.red)
        try Tools.xrandr(server.display, "--setmonitor", "LEFT", "320/85x240/64+0+0", "none")
        let run = ProgramRun.start(["mirror", "--display", server.display, "--monitor", "LEFT",
                                    "--on", "BEAMER", "--no-cursor", "--duration", "60s"])
        try await run.waitForStderr(containing: "monitor BEAMER is not on \(server.display) (there now: ")
        #expect(run.stderrSoFar.contains("LEFT"), "the monitors there are, so a typo shows: \(run.stderrSoFar)")
        #expect(run.isRunning)
        try Tools.xrandr(server.display, "--setmonitor", "BEAMER", "320/85x240/64+320+0", "none")
        try await run.waitForStderr(containing: "showing on BEAMER")
        try await Task.sleep(for: .seconds(0.7))
        let shown = try Tools.grabScreen(server.display, width: 640, height: 240)
        #expect(box(of: Self.red, in: shown, width: 640)?.rect == [0, 0, 640, 240], "the left half, shown on BEAMER")
        #expect(try await run.interrupt().status == 0)
    }

    @Test func waitsForAMonitorThatIsNotCapturedAndLeavesWhenItGoes() async throws {
        let server = try XvfbServer(width: 640, height: 240)
        try Painter(display: server.display).fill(x: 0, y: 0, width: 320, height: 240, bgra: Self.red)
        // The screen's own monitor covers both halves, so it overlaps the capture too.
        try Tools.xrandr(server.display, "--setmonitor", "LEFT", "320/85x240/64+0+0", "none")
        let run = ProgramRun.start(["mirror", "--display", server.display, "--monitor", "LEFT",
                                    "--no-cursor", "--duration", "60s"])
        try await run.waitForStderr(containing: "has no monitor besides the captured one")
        try Tools.xrandr(server.display, "--setmonitor", "RIGHT", "320/85x240/64+320+0", "none")
        try await run.waitForStderr(containing: "showing on RIGHT")
        try await Task.sleep(for: .seconds(0.7))
        let right = try Tools.grabScreen(server.display, width: 640, height: 240)
        #expect(box(of: Self.red, in: right, width: 640)?.rect == [0, 0, 640, 240],
                "the left half, mirrored on the right half")
        try Tools.xrandr(server.display, "--delmonitor", "RIGHT")
        try await run.waitForStderr(containing: "has no monitor besides the captured one", times: 2)
        try await Task.sleep(for: .seconds(0.5))
        let gone = try Tools.grabScreen(server.display, width: 640, height: 240)
        #expect(box(of: Self.red, in: gone, width: 640)?.rect == [0, 0, 320, 240], "the window closed")
        #expect(try await run.interrupt().status == 0)
    }
}

extension MirrorFollowsTests {
    /// `podium stream --to window:MONITOR` is the same window as a branch beside the encoder.
    @Test func streamShowsAWindowBesideARecording() async throws {
        let server = try Tools.laptopAndProjector()
        try Painter(display: server.display).fill(x: 0, y: 0, width: 320, height: 240, bgra: Self.red)
        let recording = try Tools.temporaryFolder().appendingPathComponent("left.mkv").path
        let run = ProgramRun.start(["stream", "--constant-fps", "--display", server.display, "--monitor", "LEFT",
                                    "--no-cursor", "--duration", "30s", "--to", "window:RIGHT", "--to", recording])
        try await run.waitForStderr(containing: "showing on RIGHT")
        try await Task.sleep(for: .seconds(0.7))
        let shown = try Tools.grabScreen(server.display, width: 640, height: 240)
        #expect(box(of: Self.red, in: shown, width: 640)?.rect == [0, 0, 640, 240],
                "the left half, shown on the right half")
        let result = try await run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("presented "))
        #expect(try Tools.probe(recording).frames > 10)
    }
}

extension MirrorFollowsTests {
    @Test func latencyTimesChangesThroughARunningMirror() async throws {
        let source = try XvfbServer(width: 640, height: 360)
        let screen = try XvfbServer(width: 320, height: 240)
        let mirror = ProgramRun.start(["mirror", "--display", source.display, "--on-display", screen.display,
                                       "--no-cursor", "--duration", "60s"])
        try await mirror.waitForStderr(containing: "showing on")
        let result = try await ProgramRun.podium(["latency", "--display", source.display,
                                                  "--on-display", screen.display, "--changes", "20", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
                                   as? [String: Double])
        #expect(figures["changes"] == 20 && figures["missed"] == 0)
        // Not a terminal: a plain progress line every ten changes, with the partial result.
        let progress = result.stderr.split(separator: "\n").filter { $0.hasPrefix("measured ") }
        #expect(progress.map { $0.split(separator: " ")[1] } == ["10/20", "20/20"], "\(result.stderr)")
        #expect(progress.allSatisfy { $0.contains("  p50 ") && $0.contains(" ms  p99 ") && $0.hasSuffix(" ms") },
                "\(result.stderr)")
        let median = try #require(figures["medianMs"])
        // At 30 fps a change waits up to one frame interval for the next grab, then is shown.
        #expect(median > 0 && median < 500, "median \(median) ms")
        #expect(try await mirror.interrupt().status == 0)
    }

    @Test func latencyWithoutAMirrorSaysSo() async throws {
        let source = try XvfbServer(width: 320, height: 240)
        let screen = try XvfbServer(width: 320, height: 240)
        let result = try await ProgramRun.podium(["latency", "--display", source.display,
                                                  "--on-display", screen.display, "--changes", "10"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("never showed on \(screen.display)"))
    }
}

extension MirrorFollowsTests {
    /// A presenter's laptop runs a window manager: fullscreen is then asked of it (EWMH), not forced.
    @Test func underAWindowManagerFullscreenIsTheManagersState() async throws {
        let source = try XvfbServer(width: 640, height: 480)
        let screen = try XvfbServer(width: 320, height: 240)
        let manager = try Tools.start("openbox", [], environment: ["DISPLAY": screen.display])
        defer { _ = try? manager.interrupt() }
        // Up once it names its check window on the root.
        let deadline = Date().addingTimeInterval(10)
        while try !Tools.run("xprop", ["-display", screen.display, "-root",
                                       "_NET_SUPPORTING_WM_CHECK"]).stdout.contains("window id"), Date() < deadline {
            try await Task.sleep(for: .seconds(0.1))
        }
        try Painter(display: source.display).fill(x: 0, y: 0, width: 640, height: 480, bgra: Self.red)
        let run = ProgramRun.start(["mirror", "--display", source.display, "--on-display", screen.display,
                                    "--no-cursor", "--duration", "30s"])
        try await run.waitForStderr(containing: "showing on")
        try await Task.sleep(for: .seconds(1))
        #expect(box(of: Self.red, in: try Tools.grabScreen(screen.display, width: 320, height: 240),
                    width: 320)?.rect == [0, 0, 320, 240])
        let clients = try Tools.run("xprop", ["-display", screen.display, "-root", "_NET_CLIENT_LIST"])
        let window = try #require(clients.stdout.split(separator: " ").last.map {
            String($0).trimmingCharacters(in: .whitespacesAndNewlines)
        })
        let state = try Tools.run("xprop", ["-display", screen.display, "-id", window, "_NET_WM_STATE"])
        #expect(state.stdout.contains("_NET_WM_STATE_FULLSCREEN"), "\(state.stdout)")
        #expect(try await run.interrupt().status == 0)
    }
}

extension MirrorTests {
    /// `--frames` ends a mirror that encodes nothing: it counts the frames grabbed.
    @Test func framesEndAMirrorWithoutARecording() async throws {
        let source = try XvfbServer(width: 320, height: 240)
        let screen = try XvfbServer(width: 320, height: 240)
        let result = try await ProgramRun.podium(["mirror", "--display", source.display, "--on-display", screen.display,
                                                  "--constant-fps", "--frames", "5"], timeout: 20)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("summary"))
    }
}

extension MirrorTests {
    /// The window says whose it is (class, pid and host) and what it shows, in the encodings
    /// window managers and task bars read; while frozen its title says so, and stops saying so
    /// on resume.
    @Test(arguments: [[], ["--windowed"]])
    func windowNamesItselfAndSaysWhenPaused(_ arguments: [String]) async throws {
        let source = try XvfbServer(width: 320, height: 240)
        let screen = try XvfbServer(width: 320, height: 240)
        let mirror = ["mirror", "--display", source.display, "--on-display", screen.display, "--no-cursor",
                      "--duration", "30s"]
        let run = ProgramRun.start(mirror + arguments)
        try await run.waitForStderr(containing: "showing on")
        let reader = try WindowProperties(display: screen.display)
        // The window's requests were sent before that line, but the server may not have run them yet.
        var windows = try reader.clients()
        for _ in 0..<40 where windows.isEmpty {
            try await Task.sleep(for: .seconds(0.05))
            windows = try reader.clients()
        }
        let window = try #require(windows.first, "a top-level window with a WM_CLASS")
        func property(_ name: String) throws -> WindowProperties.Property {
            try #require(try reader.property(name, of: window), "\(name) is set")
        }
        #expect(try property("WM_CLASS") == .init(type: "STRING", format: 8, bytes: Array("podium\0Podium\0".utf8)))
        let pid = try property("_NET_WM_PID")
        #expect(pid.type == "CARDINAL" && pid.cardinals == [UInt32(getpid())])
        #expect(try property("WM_CLIENT_MACHINE") == .init(type: "STRING", format: 8, bytes: Array(Self.hostName.utf8)))

        /// The title as EWMH (UTF-8) and ICCCM (Latin-1) have it, read at one moment and checked to
        /// agree; the icon names are the same. Waits up to 3 s for one that `expected` accepts.
        func title(_ expected: (String) -> Bool = { _ in true }) async throws -> String {
            let names = ["_NET_WM_NAME", "WM_NAME", "_NET_WM_ICON_NAME", "WM_ICON_NAME"]
            let deadline = Date().addingTimeInterval(3)
            var found = try reader.properties(names, of: window)
            while !expected(found["_NET_WM_NAME"]?.text ?? "") && Date() < deadline {
                try await Task.sleep(for: .seconds(0.05))
                found = try reader.properties(names, of: window)
            }
            let name = try #require(found["_NET_WM_NAME"])
            let legacy = try #require(found["WM_NAME"])
            #expect(name.type == "UTF8_STRING")
            #expect(String(validating: name.bytes, as: UTF8.self) != nil, "valid UTF-8: \(name.bytes)")
            #expect(legacy.type == "STRING" && legacy.text == name.text,
                    "WM_NAME \(legacy.bytes) is not \(name.text) in Latin-1")
            #expect(found["_NET_WM_ICON_NAME"] == name)
            #expect(found["WM_ICON_NAME"] == legacy)
            return name.text
        }
        let running = try await title()
        #expect(running.hasPrefix("Podium · \(source.display) "), "\(running)")
        // "·" is 0xB7 in Latin-1, one byte; raw UTF-8 would be 0xC2 0xB7 and read "Â·".
        #expect(try property("WM_NAME").bytes.starts(with: Array("Podium ".utf8) + [0xB7, 0x20]))
        #expect(!running.contains("paused"))

        let keys = try Painter(display: screen.display)
        try keys.pressKey(keysym: 0x20)
        try await run.waitForStderr(containing: "frozen")
        let frozen = try await title { $0.contains("paused") }
        #expect(frozen.hasPrefix("Podium · \(source.display) ") && frozen.hasSuffix(" · paused"), "\(frozen)")
        try keys.pressKey(keysym: 0x20)
        try await run.waitForStderr(containing: "picture frozen → live, by window")
        let resumed = try await title { !$0.contains("paused") }
        #expect(!resumed.contains("paused"), "\(resumed)")
        #expect(resumed.hasPrefix("Podium · \(source.display) "), "\(resumed)")
        #expect(try await run.interrupt().status == 0)
    }

    /// This machine's name, as the kernel keeps it (which `WM_CLIENT_MACHINE` must match).
    static var hostName: String {
        ((try? String(contentsOfFile: "/proc/sys/kernel/hostname", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
