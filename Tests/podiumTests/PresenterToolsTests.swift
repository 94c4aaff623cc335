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
        #expect(abs(last.time - first.time - 2) < 0.6, "\(colour) for as long as it was blank: \(means)")
        #expect(means.filter { $0.time >= first.time && $0.time <= last.time }.count == blank.count,
                "one blank stretch: \(means)")
        let screen = means.filter { $0.time < first.time || $0.time > last.time }
        #expect(screen.contains { $0.time < first.time } && screen.contains { $0.time > last.time },
                "the screen before and after: \(means)")
        #expect(screen.allSatisfy { $0.mean > 40 && $0.mean < 220 }, "\(means)")
    }
}
