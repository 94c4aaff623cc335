import Foundation
import PodiumTestSupport
import Testing

/// Programs repaint without changing a pixel; Podium pays for what changed, not for what was drawn.
/// A grey picture is repainted whole 100 times a second on a private Xvfb while `podium stream`
/// records it; the changes are white pixels, set in the picture being repainted.
@Suite(.serialized) struct RepaintTests {
    let server: XvfbServer
    let folder: URL
    static let grey = TestPattern.solid(width: 320, height: 240, bgra: (128, 128, 128))

    init() throws {
        server = try XvfbServer(width: 320, height: 240)
        folder = try Tools.temporaryFolder()
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    func record(_ name: String, seconds: Int) throws -> RunningCommand {
        let arguments = ["stream", "--display", server.display, "--no-cursor", "--fps", "30", "--bitrate", "20M",
                         "--duration", "\(seconds)s", "--stats-json", path(name + ".jsonl"), "--to", path(name)]
        let run = try Tools.start(Tools.podium.path, arguments)
        try run.waitForStderr(containing: "capturing")
        return run
    }

    /// A repainted picture gives the first frame and one idle repeat a second, not 30 frames a
    /// second; a one-pixel change is a frame of its own, between the repeats, and decodes.
    @Test func aRepaintedPictureSendsOnlyIdleRepeatsAndAOnePixelChangeGetsThrough() throws {
        let repainter = Repainter(display: server.display, picture: Self.grey, perSecond: 100)
        let run = try record("repainted.mkv", seconds: 3)
        // Half-way between idle repeats, which come a second apart.
        Thread.sleep(forTimeInterval: 1.5)
        repainter.set(x: 200, y: 150, bgra: (255, 255, 255))
        let result = try run.wait(timeout: 20)
        try repainter.stop()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(repainter.draws >= 200, "repainted \(repainter.draws) times")
        let frames = try Tools.greyFrames(path("repainted.mkv"), size: (320, 240))
        #expect((3...6).contains(frames.count),
                "\(frames.count) frames: the first, a repeat a second and the change (90 at 30 fps)")
        let lit = frames.map { $0.pixels[150 * 320 + 200] > 180 }
        #expect(lit.first == false && lit.last == true,
                "the pixel's luma in each frame: \(frames.map { $0.pixels[150 * 320 + 200] })")
        // The change came in its own frame, not with the next idle repeat a second later.
        if let first = lit.firstIndex(of: true), first > 0 {
            #expect(frames[first].time - frames[first - 1].time < 0.9, "frame times \(frames.map(\.time))")
        }
        let summary = try Tools.statsSummary(path("repainted.mkv.jsonl"))
        let repainted = summary["repaintedFPS"] as? Double ?? 0
        #expect(repainted >= 20, "\(repainted) repainted slots a second")
        #expect(result.stderr.contains("(repainted "), "the summary counts the repaints: \(result.stderr)")
    }

    /// 200 white pixels at random places, one more every 15 ms, each in a repaint of everything:
    /// in every decoded frame the pixels lit are exactly the first so many, never fewer than the
    /// frame before, and the last frame shows all 200.
    @Test func everyRandomPixelChangeReachesTheDecodedOutput() throws {
        var random = SeededGenerator(state: 42)
        var spots: [(x: Int, y: Int)] = []
        while spots.count < 200 {
            let spot = (x: Int.random(in: 4..<316, using: &random), y: Int.random(in: 4..<236, using: &random))
            // Apart, so one lit pixel's ringing is never read as another.
            if spots.allSatisfy({ abs($0.x - spot.x) > 3 || abs($0.y - spot.y) > 3 }) { spots.append(spot) }
        }
        let repainter = Repainter(display: server.display, picture: Self.grey, perSecond: 100)
        let run = try record("changes.mkv", seconds: 5)
        Thread.sleep(forTimeInterval: 0.5)
        for spot in spots {
            repainter.set(x: spot.x, y: spot.y, bgra: (255, 255, 255))
            Thread.sleep(forTimeInterval: 0.015)
        }
        let result = try run.wait(timeout: 20)
        try repainter.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let frames = try Tools.greyFrames(path("changes.mkv"), size: (320, 240))
        var shown = 0
        for (index, frame) in frames.enumerated() {
            let lit = spots.map { frame.pixels[$0.y * 320 + $0.x] > 180 }
            let count = lit.prefix(while: { $0 }).count
            let inOrder = !lit.dropFirst(count).contains(true) && count >= shown
            #expect(inOrder, """
                frame \(index) of \(frames.count) shows the first \(count) pixels and \(lit.filter { $0 }.count) \
                in all; the frame before \(shown)
                """)
            if !inOrder { break }
            shown = count
        }
        #expect(shown == spots.count, "the last frames show \(shown) of \(spots.count) pixels")
    }
}
