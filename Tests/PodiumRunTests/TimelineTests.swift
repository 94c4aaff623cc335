import Foundation
import PodiumCore
import PodiumTestSupport
import Testing

extension InProcess {
    /// The timeline a recording tells: frames on the frame-rate grid, and a recording as long as its
    /// run, however still the screen was.
    @Suite struct TimelineTests {
        /// A 4 s run of a screen nobody draws on: a few frames (the first, the idle repeats) and the
        /// last picture held to the end, so every container, HLS included, lasts 4 s to the frame.
        @Test func aStillScreenRecordingLastsTheRunInEveryContainer() async throws {
            let server = try XvfbServer(width: 320, height: 240)
            try Painter(display: server.display).draw(TestPattern(width: 320, height: 240, seed: 3))
            let folder = try Tools.temporaryFolder()
            let files = ["still.mkv", "still.mp4", "still.ts", "still.flv"].map {
                folder.appendingPathComponent($0).path
            }
            let playlist = folder.appendingPathComponent("hls/live.m3u8").path
            let run = try await InProcessRun(display: server.display, to: files + [playlist], duration: .seconds(4))
            #expect(await run.run() == nil)
            let frame = 1.0 / 30
            for file in files {
                let duration = try #require(try Tools.probe(file).duration, "\(file) has a duration")
                #expect(abs(duration - 4) <= frame + 0.001, "\(file) lasts \(duration) s")
            }
            let variant = try String(contentsOfFile: folder.appendingPathComponent("hls/live_240p.m3u8").path,
                                     encoding: .utf8)
            let listed = HLSPlaylist.segments(of: variant).reduce(0) { $0 + $1.seconds }
            #expect(abs(listed - 4) <= frame + 0.001, "the variant's segments last \(listed) s")
            #expect(variant.contains("#EXT-X-ENDLIST"))
            let frames = try Tools.frameTimes(files[0])
            #expect(frames.count <= 8, "a still screen is not encoded 120 times: \(frames)")
            #expect(abs((frames.last ?? 0) - (4 - frame)) < 0.002, "the last picture at the last slot: \(frames)")
        }

        /// At 60 fps on a busy screen, every packet sits on the 1/60 s grid, one or more slots after
        /// the one before: never two on one tick, never closer than a frame interval, whenever each
        /// was grabbed.
        @Test func packetsAreOnTheFrameRateGrid() async throws {
            let server = try XvfbServer(width: 640, height: 360)
            let scene = try Tools.scene(on: server.display, fps: 60)
            defer { _ = try? scene.interrupt() }
            let output = try Tools.temporaryFolder().appendingPathComponent("grid.ts").path
            let run = try await InProcessRun(display: server.display, to: [output], fps: 60, duration: .seconds(3))
            #expect(await run.run() == nil)
            let times = try Tools.frameTimes(output)
            #expect(times.count >= 90, "\(times.count) frames")
            let start = try #require(times.first)
            let slots = times.map { ($0 - start) * 60 }
            let off = slots.filter { abs($0 - $0.rounded()) >= 0.01 }
            #expect(off.isEmpty, "off the grid: \(off)")
            let steps = zip(slots, slots.dropFirst()).map { ($1 - $0).rounded() }
            #expect(steps.allSatisfy { $0 >= 1 }, "steps in slots: \(Set(steps).sorted())")
        }
    }
}
