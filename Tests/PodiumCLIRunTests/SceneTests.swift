import Foundation
import PodiumCore
import PodiumTestSupport
import Testing

/// `podium scene` drawing on a private Xvfb, recorded by `podium stream` and decoded by FFmpeg.
@Suite(.serialized, .programThreads) struct SceneTests {
    /// Draws `kind` at 30 fps on a fresh display of `screen`, records `frames` of it with
    /// `podium stream` at `fps` (more `arguments` added), stops the scene with Ctrl-C and decodes
    /// the recording to gray frames of `output` size.
    func record(_ kind: String, screen: PixelSize, frames: Int, output: PixelSize, fps: Int = 30,
                arguments: [String] = []) async throws -> [[UInt8]] {
        let server = try XvfbServer(width: screen.width, height: screen.height)
        let path = try Tools.temporaryFolder().appendingPathComponent("\(kind).mkv").path
        let scene = ProgramRun.start(["scene", "--display", server.display, "--kind", kind, "--fps", "30"])
        try await scene.waitForStderr(containing: "drawing the \(kind) scene")
        try await Task.sleep(for: .seconds(0.5))
        let stream = ["stream", "--fps", "\(fps)", "--frames", "\(frames)", "--no-cursor", "--to", path] + arguments
        let result = try await ProgramRun.podium(stream, display: server.display)
        #expect(result.status == 0, "\(result.stderr)")
        let ended = try await scene.interrupt()
        #expect(ended.status == 0 && ended.stderr.contains("drew "), "\(ended.stderr)")
        return try Tools.decodeFrames(path, width: output.width, height: output.height, pixelFormat: "gray")
    }

    /// Every frame of an H.264 recording of a video scene carries a stamp that reads back; the
    /// sequence numbers never go down, and almost every drawn frame is there.
    @Test func stampsSurviveAnH264RoundTrip() async throws {
        let size = PixelSize(width: 640, height: 480)
        let stats = try Tools.temporaryFolder().appendingPathComponent("stats.json").path
        let frames = try await record("video", screen: size, frames: 45, output: size, fps: 60,
                                arguments: ["--stats-json", stats])
        try #require(frames.count == 45)
        let stamps = frames.map { frame in SceneStrip.read { x, y in Int(frame[y * 640 + x]) } }
        #expect(stamps.allSatisfy { $0 != nil }, "unreadable stamps at \(stamps.indices.filter { stamps[$0] == nil })")
        let sequences = stamps.compactMap { $0?.sequence }
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 <= $1 }, "sequences \(sequences)")
        // A picture goes out at most twice: a scene frame drawn between a slot's damage check and
        // its grab is grabbed again at the next slot, and after a picture that changed in most rows
        // only samples of each row are compared, which cannot prove it unchanged (RowFingerprints).
        let runs = zip(sequences, sequences.dropFirst().dropFirst()).count { $0 == $1 }
        #expect(runs == 0, "sequences \(sequences)")
        // Damage-driven capture at twice the scene's rate: a drawn frame is lost only when the scene
        // draws two within one 17 ms interval (at the scene's own rate, any late draw lost one).
        let span = Int(sequences.last! - sequences.first!) + 1
        let summary = try Tools.statsSummary(stats)
        #expect(span <= 45 + 10,
                "sequences \(sequences); drops \(summary["drops"] ?? "none"), \(summary["capturedFPS"] ?? 0) fps")
        // Draw times follow the sequence: about 33 ms a frame.
        let times = stamps.compactMap { $0?.milliseconds }
        let perFrame = Double(times.last! &- times.first!) / Double(span - 1)
        #expect(abs(perFrame - 33.3) < 5, "\(perFrame) ms a frame")
    }

    /// A slides scene, scaled to 2/3 on the way: the stamp still reads, and the moving object is drawn.
    @Test func slidesStampReadsThroughScaling() async throws {
        let frames = try await record("slides", screen: PixelSize(width: 960, height: 540), frames: 20,
                                      output: PixelSize(width: 640, height: 360), arguments: ["--size", "640x360"])
        try #require(frames.count == 20)
        let stamps = frames.map { frame in SceneStrip.read(scale: 2.0 / 3) { x, y in Int(frame[y * 640 + x]) } }
        #expect(stamps.allSatisfy { $0 != nil }, "unreadable stamps at \(stamps.indices.filter { stamps[$0] == nil })")
        // Between the first and last frame only the object (and the stamp) moved: a small part of the picture.
        let changed = zip(frames.first!, frames.last!).count { abs(Int($0) - Int($1)) > 40 }
        #expect(changed > 100 && changed < 640 * 360 / 20, "\(changed) pixels changed")
    }
}
