import Foundation
import PodiumTestSupport
import Testing

/// The presenter's tools on the picture every output gets, judged on the pixels a real decoder
/// gives back: blank, highlight and zoom by their keys in a real terminal. The rest:
/// PodiumCLIRunTests' PresenterToolsTests.
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
            let corners = [(8, 8), (312, 8), (8, 232), (312, 232)].map { RGB.pixel(frame.pixels, $0.0, $0.1) }
            if corners.allSatisfy({ RGB.near($0, red) }) {
                // The pointer at (120, 100) of the picture, its disc twice as large: 50 px right of it, yellow.
                return RGB.near(RGB.pixel(frame.pixels, 170, 100), highlight) ? .zoomedOnRed : .other
            }
            if corners.allSatisfy({ RGB.near($0, white) }) { return .zoomedOnWhite }
            guard zip(corners, [red, green, blue, white]).allSatisfy({ RGB.near($0, $1) }) else { return .other }
            let beside = RGB.pixel(frame.pixels, 85, 50)
            if RGB.near(beside, red, within: 20) { return .plain }
            return RGB.near(beside, highlight) ? .highlighted : .other
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
}
