import Foundation
import PodiumTestSupport
import Testing

/// Several encodings of one capture, and HLS ladders, checked by FFmpeg's tools and played by
/// headless Chromium. One at a time, and apart from the other suites (`Scripts/test`): each
/// encodes two or three pictures a frame in real time, which on two cores costs the suites that
/// count a real-time run's frames some of theirs.
@Suite(.serialized, .programThreads) struct RenditionTests {
    /// A display showing the moving `video` scene at `fps`, and a folder for the files.
    private struct Stage {
        let server: XvfbServer
        let scene: RunningCommand
        let folder: URL

        init(width: Int, height: Int, fps: Int = 30) async throws {
            server = try XvfbServer(width: width, height: height)
            scene = try Tools.scene(on: server.display, fps: fps)
            folder = try Tools.temporaryFolder()
        }

        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

        func stop() { _ = try? scene.interrupt() }
    }

    /// Two outputs of two encodings: one encoder each, each at its size, and frames of the same
    /// capture time show the same picture. Frames two apart differ, so the check can fail.
    @Test func twoEncodingsOfOneCapture() async throws {
        let stage = try await Stage(width: 320, height: 240)
        defer { stage.stop() }
        let stats = stage.path("stats.json")
        let result = try await ProgramRun.podium(["stream", "--duration", "4s", "--stats-json", stats,
                                                  "--to", stage.path("a.mkv"),
                                                  "--to", stage.path("b.mkv") + "?size=160x120&bitrate=500k"],
                                      display: stage.server.display)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "encoding h264 with libx264").count - 1 == 2,
                "the start line names each encoder once: \(result.stderr)")
        let renditions = try #require(try Tools.statsSummary(stats)["renditions"] as? [[String: Any]])
        #expect(renditions.compactMap { $0["name"] as? String } == ["320x240", "160x120"])
        #expect(renditions.compactMap { $0["outputs"] as? [String] }.map(\.count) == [1, 1])

        let large = try Tools.probe(stage.path("a.mkv"))
        let small = try Tools.probe(stage.path("b.mkv"))
        #expect(large.width == 320 && large.height == 240 && large.frames >= 90, "\(large)")
        #expect(small.width == 160 && small.height == 120 && small.frames >= 90, "\(small)")

        func byTime(_ name: String) throws -> [Double: [UInt8]] {
            let frames = try Tools.greyFrames(stage.path(name), size: (160, 120))
            return Dictionary(uniqueKeysWithValues: frames.map { ($0.time, $0.pixels) })
        }
        let scaled = try byTime("a.mkv")
        let own = try byTime("b.mkv")
        let common = scaled.keys.filter { own[$0] != nil }.sorted()
        #expect(common.count >= 90, "\(common.count) capture times in both")
        let matched = common.map { psnr(scaled[$0]!, own[$0]!) }
        let shifted = zip(common, common.dropFirst(2)).map { psnr(scaled[$0]!, own[$1]!) }
        let matchedMedian = matched.sorted()[matched.count / 2]
        let shiftedMedian = shifted.sorted()[shifted.count / 2]
        #expect(matchedMedian >= 30, "same capture time: \(matchedMedian) dB")
        #expect(matchedMedian >= shiftedMedian + 3,
                "same time \(matchedMedian) dB, two frames apart \(shiftedMedian) dB")
    }

    /// A still screen costs only idle repeats in every encoding, and a change drawn meanwhile
    /// reaches the smaller one too: a scaled picture is made again when the rows under it changed.
    @Test func aChangeReachesEveryEncodingOfAStillScreen() async throws {
        let server = try XvfbServer(width: 320, height: 240)
        let before = TestPattern(width: 320, height: 240, seed: 4)
        try Painter(display: server.display).draw(before)
        let folder = try Tools.temporaryFolder()
        let (large, small) = (folder.appendingPathComponent("a.mkv").path, folder.appendingPathComponent("b.mkv").path)
        let run = ProgramRun.start(["stream", "--display", server.display, "--no-cursor",
                                    "--keyint", "1s", "--duration", "4s",
                                    "--to", large, "--to", small + "?size=160x120"])
        try await run.waitForStderr(containing: "capturing")
        try await Task.sleep(for: .seconds(2))
        // A band across the middle only: the rows above and below it stay as they were.
        try Painter(display: server.display).fill(x: 0, y: 100, width: 320, height: 40, bgra: (0, 0, 255))
        let result = try await run.wait(timeout: 20)
        #expect(result.status == 0, "\(result.stderr)")
        var after = before.bgra
        for y in 100..<140 {
            for x in 0..<320 { after.replaceSubrange(((y * 320 + x) * 4)..<((y * 320 + x) * 4 + 3), with: [0, 0, 255]) }
        }
        let changed = TestPattern(width: 320, height: 240, bgra: after)
        for (output, width, height) in [(large, 320, 240), (small, 160, 120)] {
            let frames = try Tools.probe(output).frames
            #expect((2...4).contains(frames), "\(output): \(frames) frames, the first and the change")
            let first = try Tools.decodeFrame(output, index: 0)
            let last = try Tools.decodeFrame(output, index: frames - 1)
            let reference = (before: try Tools.reference(before, width: width, height: height),
                             after: try Tools.reference(changed, width: width, height: height))
            #expect(psnr(first, reference.before) >= 33, "\(output) starts with the pattern")
            let changedQuality = psnr(last, reference.after)
            #expect(changedQuality >= 33, "\(output) ends with the change: \(changedQuality) dB")
            #expect(psnr(last, reference.before) < 25, "\(output) no longer shows the pattern alone")
        }
    }

    /// The default ladder of a 1280x800 source: the source, 720p and 360p, announced as they are,
    /// every segment decodable, every variant cut at the same times, closed at the end.
    @Test func hlsLadderOfTheVideoScene() async throws {
        let stage = try await Stage(width: 1280, height: 800, fps: 15)
        defer { stage.stop() }
        let master = stage.path("hls/live.m3u8")
        let result = try await ProgramRun.podium(["stream", "--fps", "15", "--duration", "6s", "--to", master],
                                      display: stage.server.display, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")

        let probe = try Tools.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height,level",
                                              "-of", "csv=p=0", master])
        #expect(probe.status == 0, "\(probe.stderr)")
        let streams = Set(probe.stdout.split(separator: "\n").map(String.init))
        #expect(streams.map { $0.split(separator: ",").prefix(3).joined(separator: ",") }.sorted()
                == ["h264,1152,720", "h264,1280,800", "h264,576,360"], "\(probe.stdout)")

        let announced = try PlaylistFiles.variants(master)
        #expect(announced.map { $0["RESOLUTION"] ?? "" } == ["1280x800", "1152x720", "576x360"])
        var boundaries: [[String]] = []
        for variant in announced {
            #expect(variant["FRAME-RATE"] == "15.000")
            let peak = Int(variant["BANDWIDTH"] ?? "") ?? 0
            let average = Int(variant["AVERAGE-BANDWIDTH"] ?? "") ?? 0
            #expect(peak >= average && average > 0, "\(variant)")
            let playlist = stage.path("hls/" + (variant["URI"] ?? ""))
            // CODECS is what ffprobe finds in the variant: constrained baseline at its level.
            let level = try Tools.run("ffprobe", ["-v", "error", "-select_streams", "v:0",
                                                  "-show_entries", "stream=level", "-of", "csv=p=0", playlist])
                .stdout.split(separator: "\n").first
            let levelHex = String(Int(level.map(String.init) ?? "") ?? 0, radix: 16)
            #expect(variant["CODECS"] == "avc1.42c0" + (levelHex.count == 1 ? "0" : "") + levelHex, "\(variant)")
            let media = try PlaylistFiles.segments(playlist)
            #expect(media.ended, "\(playlist) is closed with #EXT-X-ENDLIST")
            #expect(media.files.count >= 5, "\(playlist): \(media.files)")
            for segment in media.files { #expect(try PlaylistFiles.problem(ofSegment: segment) == nil) }
            boundaries.append(media.durations)
        }
        #expect(Set(boundaries.map { $0.joined(separator: " ") }).count == 1,
                "every variant's segments have the same durations: \(boundaries)")
    }

    /// A folder holding an earlier run's playlist is refused without `--overwrite`; with it, that
    /// run's files go and nothing else in the folder is touched.
    @Test func anEarlierRunIsReplacedOnlyWithOverwrite() async throws {
        let server = try XvfbServer(width: 320, height: 240)
        let folder = try Tools.temporaryFolder().appendingPathComponent("hls")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let files = ["live.m3u8": "old", "live_720p.m3u8": "old", "live_720p_00003.ts": "old", "live_final.ts": "mine"]
        for (name, text) in files {
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let master = folder.appendingPathComponent("live.m3u8").path
        let refused = try await ProgramRun.podium(["stream", "--duration", "1s", "--to", master],
                                                  display: server.display)
        #expect(refused.status == 73 && refused.stderr.contains("pass --overwrite"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == files.keys.sorted())

        let replaced = try await ProgramRun.podium(["stream", "--duration", "2s", "--overwrite", "--to", master],
                                        display: server.display)
        #expect(replaced.status == 0, "\(replaced.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!left.contains("live_720p.m3u8") && !left.contains("live_720p_00003.ts"), "\(left)")
        #expect(left.contains("live_240p.m3u8"), "\(left)")
        #expect(try String(contentsOf: folder.appendingPathComponent("live_final.ts"), encoding: .utf8) == "mine")
    }

    /// Headless Chromium plays the master playlist from an HTTP server (natively: Chromium plays
    /// HLS itself) for 3 s, and its screenshot of the page is the picture on the screen.
    @Test func chromiumPlaysTheLadder() async throws {
        let server = try XvfbServer(width: 640, height: 480)
        let pattern = TestPattern(width: 640, height: 480, seed: 3)
        try Painter(display: server.display).draw(pattern)
        let folder = try Tools.temporaryFolder()
        let result = try await ProgramRun.podium(["stream", "--constant-fps", "--no-cursor", "--duration", "5s",
                                                  "--to", folder.appendingPathComponent("hls/live.m3u8").path],
                                      display: server.display)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try PlaylistFiles.variants(folder.appendingPathComponent("hls/live.m3u8").path).count == 2,
                "480p and 360p")
        let page = """
            <!doctype html><html><body style="margin:0;overflow:hidden;background:#000">
            <video id="v" src="hls/live.m3u8" muted autoplay playsinline
              style="position:fixed;inset:0;width:100%;height:100%;object-fit:fill"></video></body></html>
            """
        try page.write(to: folder.appendingPathComponent("play.html"), atomically: true, encoding: .utf8)
        let (http, port) = try Tools.serve(folder)
        defer { _ = try? http.interrupt() }
        let shot = folder.appendingPathComponent("shot.png").path
        let video = "document.getElementById('v')"
        let played = try Tools.run(Tools.repository.appendingPathComponent("Scripts/browse").path, [
            "http://127.0.0.1:\(port)/play.html", "--size", "640x480", "--timeout", "40", "--screenshot", shot,
            "--until", "\(video).currentTime >= 3",
            "--value",
            "{time: \(video).currentTime, width: \(video).videoWidth, error: \(video).error && \(video).error.message}",
        ], timeout: 60)
        #expect(played.status == 0, "Chromium did not reach 3 s: \(played.stdout) \(played.stderr)")
        let rgb = shot + ".rgb"
        let converted = try Tools.run("ffmpeg", ["-v", "error", "-y", "-i", shot, "-vf", "scale=640:480",
                                                 "-f", "rawvideo", "-pix_fmt", "rgb24", rgb])
        #expect(converted.status == 0, "\(converted.stderr)")
        let seen = [UInt8](try Data(contentsOf: URL(fileURLWithPath: rgb)))
        let quality = psnr(seen, pattern.rgb)
        #expect(quality >= 32, "the page shows the screen: \(quality) dB (\(played.stdout))")
    }
}
