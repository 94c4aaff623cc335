import Foundation
import PodiumCore
import PodiumRun
import PodiumTestSupport
import Synchronization
import Testing

extension InProcess {
    /// Programs repaint without changing a pixel; Podium pays for what changed, not for what was drawn.
    /// A grey picture is repainted whole 100 times a second on a private Xvfb while a run records it;
    /// the changes are white pixels, set in the picture being repainted.
    @Suite struct RepaintTests {
        let server: XvfbServer
        let folder: URL
        static let grey = TestPattern.solid(width: 320, height: 240, bgra: (128, 128, 128))

        init() throws {
            server = try XvfbServer(width: 320, height: 240)
            folder = try Tools.temporaryFolder()
        }

        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

        func record(_ name: String, seconds: Int) async throws -> (InProcessRun, Task<PodiumError?, Never>) {
            var encode = EncodingDefaults()
            encode.bitrate = Bitrate(bitsPerSecond: 20_000_000)
            let run = try await InProcessRun(display: server.display, to: [path(name)], duration: .seconds(seconds),
                                             encode: encode)
            return (run, await run.start())
        }

        /// A repainted picture gives the first frame and one idle repeat a second, not 30 frames a
        /// second; a one-pixel change is a frame of its own, between the repeats, and decodes.
        @Test func aRepaintedPictureSendsOnlyIdleRepeatsAndAOnePixelChangeGetsThrough() async throws {
            let repainter = Repainter(display: server.display, picture: Self.grey, perSecond: 100)
            let (run, running) = try await record("repainted.mkv", seconds: 3)
            // Half-way between idle repeats, which come a second apart.
            try await Task.sleep(for: .milliseconds(1500))
            try await repainter.set(x: 200, y: 150, bgra: (255, 255, 255))
            #expect(await running.value == nil)
            try repainter.stop()
            #expect(repainter.draws >= 200, "repainted \(repainter.draws) times")
            let frames = try Tools.greyFrames(path("repainted.mkv"), size: (320, 240))
            // The first, a repeat a second, the change and the last picture held to the end (90 at 30 fps).
            #expect((3...7).contains(frames.count), "\(frames.count) frames")
            let lit = frames.map { $0.pixels[150 * 320 + 200] > 180 }
            #expect(lit.first == false && lit.last == true,
                    "the pixel's luma in each frame: \(frames.map { $0.pixels[150 * 320 + 200] })")
            // The change came in its own frame, not with the next idle repeat a second later.
            if let first = lit.firstIndex(of: true), first > 0 {
                #expect(frames[first].time - frames[first - 1].time < 0.9, "frame times \(frames.map(\.time))")
            }
            let repainted = run.counters.sources[0].repainted.load(ordering: .relaxed)
            #expect(repainted >= 60, "\(repainted) repainted slots in 3 s")
        }

        /// 200 white pixels at random places, one more every 15 ms, each in a repaint of everything:
        /// in every decoded frame the pixels lit are exactly the first so many, never fewer than the
        /// frame before, and the last frame shows all 200.
        @Test func everyRandomPixelChangeReachesTheDecodedOutput() async throws {
            var random = SeededGenerator(state: 42)
            var spots: [(x: Int, y: Int)] = []
            while spots.count < 200 {
                let spot = (x: Int.random(in: 4..<316, using: &random), y: Int.random(in: 4..<236, using: &random))
                // Apart, so one lit pixel's ringing is never read as another.
                if spots.allSatisfy({ abs($0.x - spot.x) > 3 || abs($0.y - spot.y) > 3 }) { spots.append(spot) }
            }
            let repainter = Repainter(display: server.display, picture: Self.grey, perSecond: 100)
            let (run, running) = try await record("changes.mkv", seconds: 60)
            try await Task.sleep(for: .milliseconds(500))
            for spot in spots {
                try await repainter.set(x: spot.x, y: spot.y, bgra: (255, 255, 255))
                try await Task.sleep(for: .milliseconds(15))
            }
            // A second to show the last, then stopped as Ctrl-C stops a run.
            try await Task.sleep(for: .seconds(1))
            run.session.run.stop()
            #expect(await running.value == nil)
            try repainter.stop()
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
}
