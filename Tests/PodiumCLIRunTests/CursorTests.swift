import Foundation
import PodiumTestSupport
import Testing

/// The pointer anywhere: inside the captured rectangle, partly outside it on every side and
/// corner, wholly outside, on another monitor, larger than the region. The run goes on, the
/// recording is finalized, and the cursor's pixels appear exactly where it overlaps.
@Suite(.serialized, .programThreads) struct CursorTests {
    static let green: (UInt8, UInt8, UInt8) = (0, 160, 0)

    /// Moves the pointer of `display` to (`x`, `y`), with xdotool as a user's mouse would.
    func movePointer(on display: String, x: Int, y: Int) async throws {
        let arguments = ["mousemove", "\(x)", "\(y)"]
        let moved = try Tools.start("/usr/bin/xdotool", arguments, environment: ["DISPLAY": display]).wait(timeout: 10)
        guard moved.status == 0 else { throw TestFailure("xdotool mousemove: \(moved.stderr)") }
    }

    /// The pixels of `shown` (BGRA, `width` wide) that are not green, as (x, y).
    func cursorPixels(_ shown: [UInt8], width: Int) -> [(x: Int, y: Int)] {
        stride(from: 0, to: shown.count, by: 4).compactMap { index in
            let isGreen = shown[index] == Self.green.0 && shown[index + 1] == Self.green.1
                && shown[index + 2] == Self.green.2
            return isGreen ? nil : ((index / 4) % width, (index / 4) / width)
        }
    }

    /// `podium mirror --region` of a green screen onto a display of the region's size (1:1, so
    /// exact), recording at the same time; the pointer visits each of `positions` (screen
    /// coordinates, and whether the cursor overlaps the region there).
    func visit(
        region: (x: Int, y: Int, width: Int, height: Int), _ positions: [(x: Int, y: Int, overlaps: Bool)]
    ) async throws {
        let source = try XvfbServer(width: 640, height: 480)
        let screen = try XvfbServer(width: region.width, height: region.height)
        try Painter(display: source.display).fill(x: 0, y: 0, width: 640, height: 480, bgra: Self.green)
        try await movePointer(on: source.display, x: 600, y: 450)
        let recording = try Tools.temporaryFolder().appendingPathComponent("pointer.mkv").path
        let run = ProgramRun.start([
                                    "mirror", "--display", source.display, "--on-display", screen.display, "--region",
                                    "\(region.width)x\(region.height)+\(region.x)+\(region.y)", "--duration", "60s",
                                    "--to", recording,
                                    ])
        try await run.waitForStderr(containing: "showing on")
        for position in positions {
            try await movePointer(on: source.display, x: position.x, y: position.y)
            try await Task.sleep(for: .seconds(0.4))
            let shown = try Tools.grabScreen(screen.display, width: region.width, height: region.height)
            let drawn = cursorPixels(shown, width: region.width)
            #expect(run.isRunning, "still running with the pointer at \(position)")
            if position.overlaps {
                #expect(!drawn.isEmpty, "the cursor is drawn with the pointer at \(position)")
                // Where it is drawn: near the pointer, in the region's coordinates (X's cursors are at most 64 pixels).
                let (pointerX, pointerY) = (position.x - region.x, position.y - region.y)
                let far = drawn.filter { abs($0.x - pointerX) > 32 || abs($0.y - pointerY) > 32 }
                #expect(far.isEmpty, "cursor pixels far from the pointer at \(position): \(far.prefix(3))")
            } else {
                #expect(drawn.isEmpty, "no cursor pixels with the pointer at \(position): \(drawn.prefix(3))")
            }
        }
        let result = try await run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
        #expect(try Tools.probe(recording).frames >= 2, "the recording is finalized and decodes")
    }

    /// Twelve positions around and inside a 64x48 region at (200, 200): Xvfb's cursor reaches
    /// about 8 pixels from its hotspot, so 3 pixels outside an edge it still shows, 40 pixels
    /// outside it does not.
    @Test func everyPositionAroundTheRegion() async throws {
        let (left, top, right, bottom) = (200, 200, 263, 247)
        try await visit(region: (200, 200, 64, 48), [
            (232, 224, true),  // inside
            (left - 3, 224, true), (right + 3, 224, true), (232, top - 3, true), (232, bottom + 3, true),  // the sides
            (left - 3, top - 3, true), (right + 3, top - 3, true),
            (left - 3, bottom + 3, true), (right + 3, bottom + 3, true),
            (right + 40, 224, false), (left - 40, top - 40, false), (620, 20, false),  // wholly outside
        ])
    }

    /// A cursor larger than the region (`--region 8x8+0+0`), at the screen's corner and away from it.
    @Test func cursorLargerThanTheRegion() async throws {
        try await visit(region: (0, 0, 8, 8),
                        [(4, 4, true), (0, 0, true), (9, 9, true), (100, 100, false), (4, 4, true)])
    }

    /// A laptop and a projector on one X screen: the left monitor is captured and shown on the
    /// right one, and the pointer goes onto the projector, across the edge, and back.
    @Test func pointerOnTheProjector() async throws {
        let server = try Tools.laptopAndProjector()
        try Painter(display: server.display).fill(x: 0, y: 0, width: 640, height: 240, bgra: Self.green)
        let recording = try Tools.temporaryFolder().appendingPathComponent("laptop.mkv").path
        let run = ProgramRun.start(["stream", "--display", server.display, "--monitor", "LEFT",
                                    "--duration", "60s",
                                    "--to", "window:RIGHT", "--to", recording])
        try await run.waitForStderr(containing: "showing on RIGHT")
        let positions = [(160, 120, true), (480, 120, false), (321, 5, true), (639, 239, false), (600, 10, false)]
        for (x, y, overlaps) in positions {
            try await movePointer(on: server.display, x: x, y: y)
            try await Task.sleep(for: .seconds(0.4))
            let shown = try Tools.grabScreen(server.display, width: 640, height: 240)
            var right: [UInt8] = []
            for row in 0..<240 {
                let start: Int = (row * 640 + 320) * 4
                right += shown[start..<(start + 320 * 4)]
            }
            let drawn = cursorPixels(right, width: 320)
            #expect(run.isRunning, "still running with the pointer at (\(x), \(y))")
            #expect(drawn.isEmpty != overlaps, "\(drawn.count) cursor pixels in the window, pointer at (\(x), \(y))")
        }
        let result = try await run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Tools.probe(recording).frames >= 2, "the recording is finalized and decodes")
    }
}
