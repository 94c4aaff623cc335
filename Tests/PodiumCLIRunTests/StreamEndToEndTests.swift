import Foundation
import PodiumTestSupport
import Testing

/// `podium stream` against a private Xvfb showing a known picture, checked by FFmpeg's tools: what
/// the command line adds to the graph (its flags, its endings, its statistics). The graph itself is
/// tested in-process (PodiumRunTests).
/// Serialized: each test encodes in real time, and two cores are shared with the peers.
@Suite(.serialized, .programThreads) struct StreamEndToEndTests {
    let server: XvfbServer
    let pattern: TestPattern
    let folder: URL

    init() async throws {
        server = try XvfbServer(width: 320, height: 240)
        pattern = TestPattern(width: 320, height: 240, seed: 2)
        try Painter(display: server.display).draw(pattern)
        folder = try Tools.temporaryFolder()
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The names other tools use work here too (`--max-fps`, `-t` with a clock time, `-b`,
    /// `--video-bit-rate`), and `--crf` sets the quality: lower is larger.
    @Test func familiarAliasesAndConstantQuality() async throws {
        var sizes: [Int] = []
        for crf in ["10", "45"] {
            let output = path("crf\(crf).mkv")
            let result = try await ProgramRun.podium(["stream", "--constant-fps", "--max-fps", "10", "-t", "00:00:01.5",
                                                      "--crf", crf, "--no-cursor", "--to", output],
                                                     display: server.display)
            #expect(result.status == 0, "\(result.stderr)")
            let probe = try Tools.probe(output)
            #expect((12...17).contains(probe.frames), "1.5 s at 10 fps: \(probe.frames) frames")
            sizes.append((try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0)
        }
        #expect(sizes[0] > 2 * sizes[1], "crf 10 makes a larger file than crf 45: \(sizes)")
        for rate in [["-b", "300k"], ["--video-bit-rate", "300k"]] {
            let output = path("rate.mkv")
            let result = try await ProgramRun.podium(
                ["stream", "--frames", "5", "--overwrite"] + rate + ["--to", output], display: server.display)
            #expect(result.status == 0, "\(rate): \(result.stderr)")
        }
    }

    /// Untagged, a player guesses the colour matrix (BT.709 for HD); tagged, FFmpeg follows the
    /// tags back to the screen's RGB.
    @Test func coloursAreTaggedAsMadeAndDecodeToTheScreensRGB() async throws {
        let output = path("colours.mkv")
        let result = try await ProgramRun.podium(["stream", "--constant-fps", "--frames", "10", "--no-cursor",
                                                  "--to", output], display: server.display)
        #expect(result.status == 0, "\(result.stderr)")
        let tags = try Tools.run("ffprobe", [
            "-v", "error", "-select_streams", "v:0", "-show_entries",
            "stream=color_space,color_range,color_primaries,color_transfer,chroma_location",
            "-of", "default=nw=1", output
        ])
        #expect(tags.stdout.split(separator: "\n").sorted() == [
            "chroma_location=center", "color_primaries=bt709", "color_range=tv", "color_space=smpte170m",
            "color_transfer=iec61966-2-1",
        ])
        // 38.5 dB here (4:2:0 chroma costs this texture most of the rest); decoded with the wrong
        // matrix, 30.6 dB.
        let quality = psnr(try Tools.decodeFrame(output, index: 5, pixelFormat: "rgb24"), pattern.rgb)
        #expect(quality >= 36, "RGB PSNR \(quality) dB")
    }

    @Test func scaledAndRoundedToEvenSides() async throws {
        let output = path("small.mp4")
        let result = try await ProgramRun.podium(["stream", "--constant-fps", "--frames", "10", "--scale", "0.33",
                                                  "--to", output], display: server.display)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("106x79 rounded to 106x78"), "320x240 × 0.33 is 106x79")
        let probe = try Tools.probe(output)
        #expect(probe.width == 106 && probe.height == 78)
        #expect(probe.frames == 10)
        // Podium's scaling against FFmpeg's own scaling of the same picture.
        let quality = psnr(try Tools.decodeFrame(output, index: 5),
                           try Tools.reference(pattern, width: 106, height: 78))
        #expect(quality >= 30, "PSNR \(quality) dB")
    }

    @Test func statsJSONHasOneObjectASecondAndASummary() async throws {
        let stats = path("stats.jsonl")
        let result = try await ProgramRun.podium(["stream", "--constant-fps", "--duration", "2500ms", "--quiet",
                                                  "--stats-json", stats, "--to", path("s.ts")],
                                                 display: server.display)
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty, "--quiet prints nothing: \(result.stderr)")
        let lines = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n")
        let objects = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == 3, "two seconds, then the summary")
        #expect(objects.last??["kind"] as? String == "summary")
        // 2.5 s of 30 fps slots: taken, or missed when a starved machine's loop fell behind (CI's
        // busiest run took 67), each counted.
        let frames = objects.last??["frames"] as? Int ?? 0
        let skipped = (objects.last??["drops"] as? [String: Int])?["skipped"] ?? 0
        #expect((70...76).contains(frames + skipped), "2.5 s at 30 fps: \(frames) taken, \(skipped) missed")
    }
}

@Suite(.programThreads) struct DisplaysCommandTests {
    @Test func jsonDescribesTheScreenAndMonitors() async throws {
        let server = try XvfbServer(width: 800, height: 600)
        let result = try await ProgramRun.podium(["displays", "--json"], display: server.display)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["display"] as? String == server.display)
        let size = object["size"] as? [String: Int]
        #expect(size?["width"] == 800 && size?["height"] == 600)
        let monitors = try #require(object["monitors"] as? [[String: Any]])
        #expect(monitors.count == 1)
        let text = try await ProgramRun.podium(["displays"], display: server.display)
        #expect(text.stdout.contains("800x600+0+0"))
    }
}
