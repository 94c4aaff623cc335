import Foundation
import PodiumTestSupport
import Testing

/// The presenter's tools on the picture every output gets, judged on the pixels a real decoder
/// gives back.
@Suite(.serialized) struct PresenterToolsTests {
    /// `b` and `w` in a real terminal: the recording goes black (or white) while blank, as long as
    /// the blank lasted, and shows the screen before and after it.
    @Test(arguments: ["b", "w"])
    func blankKeysTurnTheRecordingBlackOrWhiteAndBack(key: String) throws {
        let server = try XvfbServer(width: 320, height: 240)
        try Painter(display: server.display).draw(TestPattern(width: 320, height: 240, seed: 5))
        let folder = try Tools.temporaryFolder()
        let output = folder.appendingPathComponent("blank-\(key).mkv").path
        let terminal = try TerminalSession("\(Tools.podium.path) stream --display \(server.display) --to \(output)")
        try terminal.waitFor("capturing")
        Thread.sleep(forTimeInterval: 1)
        let colour = key == "b" ? "black" : "white"
        try terminal.send(key)
        try terminal.waitFor("podium: screen shown → \(colour), by key")
        Thread.sleep(forTimeInterval: 2)
        try terminal.send(key)
        try terminal.waitFor("podium: screen \(colour) → shown, by key")
        Thread.sleep(forTimeInterval: 1)
        try terminal.send("q")
        #expect(try terminal.ending().status == 0, "\(terminal.screen)")

        // Each frame's mean grey level: the pattern's, then the colour's, then the pattern's again.
        let frames = try Tools.greyFrames(output, size: (width: 32, height: 24))
        let means = frames.map { (time: $0.time, mean: Double($0.pixels.reduce(0) { $0 + Int($1) }) / 768) }
        let blank = means.filter { key == "b" ? $0.mean < 20 : $0.mean > 235 }
        let first = try #require(blank.first, "no \(colour) frame: \(means)")
        let last = try #require(blank.last)
        // Shown until the next picture: a still one is not sent again to a file.
        let shownUntil = means.first { $0.time > last.time }?.time ?? last.time
        #expect(abs(shownUntil - first.time - 2) < 0.6, "\(colour) for as long as it was blank: \(means)")
        #expect(means.filter { $0.time >= first.time && $0.time <= last.time }.count == blank.count,
                "one blank stretch: \(means)")
        let screen = means.filter { $0.time < first.time || $0.time > last.time }
        #expect(screen.contains { $0.time < first.time } && screen.contains { $0.time > last.time },
                "the screen before and after: \(means)")
        #expect(screen.allSatisfy { $0.mean > 40 && $0.mean < 220 }, "\(means)")
    }

    /// An RGB pixel of a decoded frame, `width` wide.
    static func pixel(_ frame: [UInt8], _ x: Int, _ y: Int, width: Int = 320) -> (r: Int, g: Int, b: Int) {
        let index = (y * width + x) * 3
        return (Int(frame[index]), Int(frame[index + 1]), Int(frame[index + 2]))
    }

    static func near(_ pixel: (r: Int, g: Int, b: Int), _ colour: (r: Int, g: Int, b: Int), within: Int = 40) -> Bool {
        abs(pixel.r - colour.r) <= within && abs(pixel.g - colour.g) <= within && abs(pixel.b - colour.b) <= within
    }

    /// `h` and `z` in a real terminal, over four coloured quadrants with the pointer in the red one:
    /// the highlight appears around the pointer; the zoom fills the picture with red; a move of the
    /// pointer to the white quadrant fills it with white from the next frame, nothing between.
    @Test func highlightAndZoomFollowThePointer() throws {
        let server = try XvfbServer(width: 320, height: 240)
        let painter = try Painter(display: server.display)
        try painter.fill(x: 0, y: 0, width: 160, height: 120, bgra: (0, 0, 255))
        try painter.fill(x: 160, y: 0, width: 160, height: 120, bgra: (0, 255, 0))
        try painter.fill(x: 0, y: 120, width: 160, height: 120, bgra: (255, 0, 0))
        try painter.fill(x: 160, y: 120, width: 160, height: 120, bgra: (255, 255, 255))
        try Tools.xdotool(server.display, "mousemove", "60", "50")
        let folder = try Tools.temporaryFolder()
        let output = folder.appendingPathComponent("zoom.mkv").path
        let stats = folder.appendingPathComponent("zoom.jsonl").path
        let terminal = try TerminalSession("\(Tools.podium.path) stream --display \(server.display) --fps 30 "
                                           + "--stats-json \(stats) --to \(output)")
        try terminal.waitFor("capturing")
        Thread.sleep(forTimeInterval: 1)
        try terminal.send("h")
        try terminal.waitFor("podium: highlight off → on, by key")
        Thread.sleep(forTimeInterval: 1.5)
        try terminal.send("z")
        try terminal.waitFor("podium: zoom 1× → 2×, by key")
        Thread.sleep(forTimeInterval: 1.5)
        try Tools.xdotool(server.display, "mousemove", "280", "200")
        Thread.sleep(forTimeInterval: 1)
        try terminal.send("q")
        #expect(try terminal.ending().status == 0, "\(terminal.screen)")

        enum Look: Int, Comparable {
            case plain, highlighted, zoomedOnRed, zoomedOnWhite, other
            static func < (a: Look, b: Look) -> Bool { a.rawValue < b.rawValue }
        }
        let (red, green, blue, white) = ((r: 255, g: 0, b: 0), (r: 0, g: 255, b: 0), (r: 0, g: 0, b: 255),
                                         (r: 255, g: 255, b: 255))
        // 40 % yellow over red: (255, 102, 0).
        let highlight = (r: 255, g: 102, b: 0)
        let frames = try Tools.rgbFrames(output, size: (320, 240))
        let looks = frames.map { frame -> Look in
            let corners = [(8, 8), (312, 8), (8, 232), (312, 232)].map { Self.pixel(frame.pixels, $0.0, $0.1) }
            if corners.allSatisfy({ Self.near($0, red) }) {
                // The pointer at (120, 100) of the picture, its disc twice as large: 50 px right of it, yellow.
                return Self.near(Self.pixel(frame.pixels, 170, 100), highlight) ? .zoomedOnRed : .other
            }
            if corners.allSatisfy({ Self.near($0, white) }) { return .zoomedOnWhite }
            guard zip(corners, [red, green, blue, white]).allSatisfy({ Self.near($0, $1) }) else { return .other }
            let beside = Self.pixel(frame.pixels, 85, 50)
            if Self.near(beside, red, within: 20) { return .plain }
            return Self.near(beside, highlight) ? .highlighted : .other
        }
        let described = zip(frames, looks).map { "\(String(format: "%.2f", $0.time)) \($1)" }
        #expect(!looks.contains(.other), "\(described)")
        #expect(looks == looks.sorted(), "each look in turn, nothing between: \(described)")
        #expect(Set(looks) == [.plain, .highlighted, .zoomedOnRed, .zoomedOnWhite], "\(described)")
        // Still screen, still pointer: only the change and the idle repeats (1 a second) are encoded.
        for look in [Look.highlighted, .zoomedOnRed] {
            #expect(looks.filter { $0 == look }.count <= 4, "\(look) while nothing moved: \(described)")
        }
    }

    /// A click with the highlight on: a ring spreads beyond the disc for half a second, then only
    /// the disc is left, from the next frame on.
    @Test func aClickSpreadsARing() throws {
        let server = try XvfbServer(width: 320, height: 240)
        try Painter(display: server.display).fill(x: 0, y: 0, width: 320, height: 240, bgra: (64, 64, 64))
        try Tools.xdotool(server.display, "mousemove", "160", "120")
        let folder = try Tools.temporaryFolder()
        let output = folder.appendingPathComponent("ring.mkv").path
        let run = try Tools.start(Tools.podium.path, ["stream", "--display", server.display, "--fps", "30",
                                                      "--highlight-pointer=#ff0000,30", "-t", "4s",
                                                      "--to", output])
        // A click before the capture has started draws no ring: a loaded machine starts it late.
        try run.waitForStderr(containing: "capturing")
        Thread.sleep(forTimeInterval: 1)
        try Tools.xdotool(server.display, "click", "1")
        #expect(try run.wait(timeout: 30).status == 0)

        let frames = try Tools.rgbFrames(output, size: (320, 240))
        // Red at 40 % over grey inside the disc (radius 30); the ring runs from 30 to 60 px out.
        let disc = frames.map { Self.near(Self.pixel($0.pixels, 160 + 20, 120), (r: 140, g: 38, b: 38), within: 25) }
        #expect(disc.allSatisfy { $0 }, "the disc in every frame: \(frames.map { Self.pixel($0.pixels, 180, 120) })")
        let ringed = frames.filter { frame in
            (36...64).contains { Self.pixel(frame.pixels, 160 + $0, 120).r > 120 }
        }
        let grey = frames.filter { frame in
            (36...64).allSatisfy {
                Self.near(Self.pixel(frame.pixels, 160 + $0, 120), (r: 64, g: 64, b: 64), within: 12)
            }
        }
        // Several frames (15 at 30 fps; a fresh-clone run beside the main group's others got 4).
        #expect(ringed.count >= 3, "a ring in several frames: \(ringed.map(\.time))")
        let ringTimes = ringed.map(\.time)
        if let first = ringTimes.first, let last = ringTimes.last {
            #expect(last - first < 0.6, "for half a second: \(ringTimes)")
            // Gone at once when it has spread, not at the next idle repeat.
            let cleared = grey.first { $0.time > last }
            #expect(cleared.map { $0.time - first < 0.75 } == true,
                    "gone after it: \(ringTimes), grey again at \(cleared?.time ?? -1)")
            #expect(grey.contains { $0.time < first }, "not there before the click")
        }
    }

    /// Under openbox, a "Passwords" window and a notification pop-up beside a "Notes" window:
    /// with `--mask-window Passwords --mask notifications`, not one of their pixels reaches the
    /// recording, also while and after the password window moves; their areas are black, the
    /// notes window is intact, and where the password window was shows the desktop again.
    @Test func masksFollowWindowsAndNeverLeak() throws {
        let server = try XvfbServer(width: 320, height: 240)
        _ = try Tools.run("xsetroot", ["-display", server.display, "-solid", "#808080"])
        let manager = try WindowManager(display: server.display)
        defer { withExtendedLifetime(manager) {} }
        let secret = try TestWindow(display: server.display, title: "Passwords — KeePassXC", x: 20, y: 40,
                                    width: 100, height: 60, rgb: 0xFF0000)
        let notes = try TestWindow(display: server.display, title: "Notes", x: 190, y: 40, width: 100, height: 60,
                                   rgb: 0x00FF00)
        let popup = try TestWindow(display: server.display, title: "New message", x: 190, y: 160, width: 110,
                                   height: 50, rgb: 0x0000FF, windowType: "_NET_WM_WINDOW_TYPE_NOTIFICATION",
                                   overrideRedirect: true)
        for window in [secret, notes, popup] { try window.waitUntilShown() }
        let folder = try Tools.temporaryFolder()
        let output = folder.appendingPathComponent("masked.mkv").path
        let run = try Tools.start(Tools.podium.path, ["stream", "--display", server.display, "--fps", "20",
                                                      "--mask-window", "passwords", "--mask", "notifications",
                                                      "-t", "5s", "--to", output])
        try run.waitForStderr(containing: "capturing")
        Thread.sleep(forTimeInterval: 1)
        // Dragged across in steps, as a hand would.
        for step in 1...10 {
            try Tools.xdotool(server.display, "windowmove", "\(secret.id)", "20", "\(40 + 10 * step)")
            Thread.sleep(forTimeInterval: 0.05)
        }
        let result = try run.wait(timeout: 30)
        #expect(result.status == 0)
        let said = result.stderr.split(separator: "\n").first { $0.contains("podium: masking ") } ?? ""
        #expect(said.contains("'Passwords — KeePassXC' (\(secret.hexID))") && said.contains("'New message' ("),
                "\(result.stderr)")

        let frames = try Tools.rgbFrames(output, size: (320, 240))
        #expect(frames.count >= 5)
        let leaks = frames.filter { frame in
            stride(from: 0, to: frame.pixels.count, by: 3).contains { index in
                let (r, g, b) = (Int(frame.pixels[index]), Int(frame.pixels[index + 1]), Int(frame.pixels[index + 2]))
                return (r > 150 && g < 90 && b < 90) || (b > 150 && r < 90 && g < 90)
            }
        }
        #expect(leaks.isEmpty, "red or blue in the frames at \(leaks.map(\.time))")
        let black = (r: 0, g: 0, b: 0)
        for frame in frames {
            #expect(Self.near(Self.pixel(frame.pixels, 240, 75), (r: 0, g: 255, b: 0)), "notes intact at \(frame.time)")
            #expect(Self.near(Self.pixel(frame.pixels, 245, 185), black, within: 16), "pop-up black at \(frame.time)")
        }
        let first = try #require(frames.first)
        let last = try #require(frames.last)
        #expect(Self.near(Self.pixel(first.pixels, 70, 70), black, within: 16), "masked where it was first")
        #expect(Self.near(Self.pixel(last.pixels, 70, 170), black, within: 16), "masked where it went")
        #expect(Self.near(Self.pixel(last.pixels, 70, 50), (r: 128, g: 128, b: 128), within: 16),
                "the desktop where it was")
    }

    /// `--show-region`: a green border just outside the captured rectangle on the screen, and
    /// none of it in the picture.
    @Test func showRegionDrawsABorderOutsideThePicture() throws {
        let server = try XvfbServer(width: 320, height: 240)
        _ = try Tools.run("xsetroot", ["-display", server.display, "-solid", "#808080"])
        let folder = try Tools.temporaryFolder()
        let output = folder.appendingPathComponent("region.mkv").path
        let run = try Tools.start(Tools.podium.path, ["stream", "--display", server.display, "--region",
                                                      "200x150+60+40", "--show-region", "-t", "3s",
                                                      "--to", output])
        try run.waitForStderr(containing: "capturing")
        Thread.sleep(forTimeInterval: 1)
        let bgra = try Tools.grabScreen(server.display, width: 320, height: 240)
        #expect(try run.wait(timeout: 30).status == 0)
        // As RGB, as the frames are read.
        var shown: [UInt8] = []
        for index in stride(from: 0, to: bgra.count, by: 4) { shown += [bgra[index + 2], bgra[index + 1], bgra[index]] }
        let green = (r: 0, g: 200, b: 80)
        for (x, y) in [(58, 100), (261, 100), (150, 38), (150, 191), (57, 37)] {
            #expect(Self.near(Self.pixel(shown, x, y), green, within: 8), "border at (\(x), \(y))")
        }
        for (x, y) in [(60, 100), (259, 100), (150, 40), (150, 189), (54, 100)] {
            #expect(Self.near(Self.pixel(shown, x, y), (r: 128, g: 128, b: 128), within: 8), "no border at (\(x), \(y))")
        }
        let frames = try Tools.rgbFrames(output, size: (200, 150))
        #expect(!frames.isEmpty)
        for frame in frames {
            let edges = [(0, 0), (199, 0), (0, 149), (199, 149), (100, 0), (0, 75)]
            #expect(edges.allSatisfy { Self.near(Self.pixel(frame.pixels, $0.0, $0.1, width: 200),
                                                 (r: 128, g: 128, b: 128), within: 12) }, "no border in the picture")
        }
    }

    /// The frames of `path` (any picture ffmpeg reads) at `width`×`height`, as RGB.
    static func rgb(of path: String, width: Int, height: Int) throws -> [UInt8] {
        let raw = path + ".rgb"
        let converted = try Tools.run("ffmpeg", ["-v", "error", "-y", "-i", path, "-vf", "scale=\(width):\(height)",
                                                 "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", raw])
        guard converted.status == 0 else { throw TestFailure("ffmpeg cannot read \(path): \(converted.stderr)") }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
    }

    /// Whether any pixel of an RGB picture is strongly red.
    static func hasRed(_ rgb: [UInt8]) -> Bool {
        stride(from: 0, to: rgb.count - 2, by: 3).contains { rgb[$0] > 150 && rgb[$0 + 1] < 90 && rgb[$0 + 2] < 90 }
    }

    /// A masked window on the projector and in the browser viewer: its area black, not a pixel of
    /// it shown, the window beside it intact. Then `b` in the projector's window: a viewer that
    /// joins sees the black screen.
    @Test func aMaskedWindowIsBlackOnTheProjectorAndInTheViewer() throws {
        let source = try XvfbServer(width: 320, height: 240)
        let projector = try XvfbServer(width: 320, height: 240)
        _ = try Tools.run("xsetroot", ["-display", source.display, "-solid", "#808080"])
        let manager = try WindowManager(display: source.display)
        defer { withExtendedLifetime(manager) {} }
        let secret = try TestWindow(display: source.display, title: "Passwords", x: 20, y: 40, width: 100, height: 60,
                                    rgb: 0xFF0000)
        let notes = try TestWindow(display: source.display, title: "Notes", x: 190, y: 40, width: 100, height: 60,
                                   rgb: 0x00FF00)
        for window in [secret, notes] { try window.waitUntilShown() }
        let port = Tools.freePort()
        let run = try Tools.start(Tools.podium.path, ["mirror", "--display", source.display, "--on-display",
                                                     projector.display, "--no-cursor", "--duration", "30s",
                                                     "--mask-window", "Passwords",
                                                     "--to", "http://127.0.0.1:\(port)?token=off"])
        try run.waitForStderr(containing: "showing on")
        Thread.sleep(forTimeInterval: 1.5)
        let bgra = try Tools.grabScreen(projector.display, width: 320, height: 240)
        var shown: [UInt8] = []
        for index in stride(from: 0, to: bgra.count, by: 4) { shown += [bgra[index + 2], bgra[index + 1], bgra[index]] }
        let shot = try Tools.temporaryFolder().appendingPathComponent("viewer.png").path
        let browse = { (shot: String) throws -> CommandResult in
            try Tools.run(Tools.repository.appendingPathComponent("Scripts/browse").path,
                          ["http://127.0.0.1:\(port)/", "--size", "640x480", "--timeout", "30",
                           "--until", "window.podium && window.podium.painted >= 1", "--screenshot", shot],
                          timeout: 60)
        }
        let page = try browse(shot)
        // b in the projector's window: the viewer gets black pictures, not a gap.
        try Painter(display: projector.display).pressKey(keysym: 0x62)
        try run.waitForStderr(containing: "screen shown → black, by window")
        let blankShot = shot.replacingOccurrences(of: ".png", with: "-blank.png")
        let blankPage = try browse(blankShot)
        let result = try run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(page.status == 0 && blankPage.status == 0, "\(page.stdout) \(page.stderr) \(blankPage.stderr)")
        let blank = try Self.rgb(of: blankShot, width: 320, height: 240)
        #expect(blank.allSatisfy { $0 < 24 }, "the viewer shows the black screen")
        let viewer = try Self.rgb(of: shot, width: 320, height: 240)
        for (name, picture) in [("projector", shown), ("viewer", viewer)] {
            #expect(!Self.hasRed(picture), "no pixel of the masked window on the \(name)")
            #expect(Self.near(Self.pixel(picture, 70, 75), (r: 0, g: 0, b: 0), within: 20), "black on the \(name)")
            #expect(Self.near(Self.pixel(picture, 240, 75), (r: 0, g: 255, b: 0)), "notes intact on the \(name)")
        }
    }
}
