import Foundation
import PodiumTestSupport
import Testing

/// `podium stream` against a private Xvfb showing a known picture, checked by FFmpeg's tools.
/// Serialized: each test encodes in real time, and two cores are shared with the peers.
@Suite(.serialized) struct StreamEndToEndTests {
    let server: XvfbServer
    let pattern: TestPattern
    let folder: URL

    init() throws {
        server = try XvfbServer(width: 320, height: 240)
        pattern = TestPattern(width: 320, height: 240, seed: 2)
        try Painter(display: server.display).draw(pattern)
        folder = try Tools.temporaryFolder()
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    @Test func sixtyFramesToMatroskaDecodeToThePicture() throws {
        let output = path("out.mkv")
        let result = try Tools.podium(["stream", "--constant-fps", "--frames", "60", "--no-cursor", "--to", output], display: server.display)
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try Tools.probe(output)
        #expect(probe.frames == 60)
        #expect(probe.width == 320 && probe.height == 240)
        let quality = psnr(try Tools.decodeFrame(output, index: 30), try Tools.reference(pattern))
        #expect(quality >= 40, "PSNR \(quality) dB")
        #expect(result.stderr.contains("summary:"))
    }

    /// The names other tools use work here too (`--max-fps`, `-t` with a clock time, `-b`,
    /// `--video-bit-rate`), and `--crf` sets the quality: lower is larger.
    @Test func familiarAliasesAndConstantQuality() throws {
        var sizes: [Int] = []
        for crf in ["10", "45"] {
            let output = path("crf\(crf).mkv")
            let result = try Tools.podium(["stream", "--constant-fps", "--max-fps", "10", "-t", "00:00:01.5",
                                           "--crf", crf, "--no-cursor", "--to", output], display: server.display)
            #expect(result.status == 0, "\(result.stderr)")
            let probe = try Tools.probe(output)
            #expect((12...17).contains(probe.frames), "1.5 s at 10 fps: \(probe.frames) frames")
            sizes.append((try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0)
        }
        #expect(sizes[0] > 2 * sizes[1], "crf 10 makes a larger file than crf 45: \(sizes)")
        for rate in [["-b", "300k"], ["--video-bit-rate", "300k"]] {
            let output = path("rate.mkv")
            let result = try Tools.podium(["stream", "--frames", "5", "--overwrite"] + rate + ["--to", output],
                                          display: server.display)
            #expect(result.status == 0, "\(rate): \(result.stderr)")
        }
    }

    /// Untagged, a player guesses the colour matrix (BT.709 for HD); tagged, FFmpeg follows the
    /// tags back to the screen's RGB.
    @Test func coloursAreTaggedAsMadeAndDecodeToTheScreensRGB() throws {
        let output = path("colours.mkv")
        let result = try Tools.podium(["stream", "--constant-fps", "--frames", "10", "--no-cursor", "--to", output], display: server.display)
        #expect(result.status == 0, "\(result.stderr)")
        let tags = try Tools.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                             "stream=color_space,color_range,color_primaries,color_transfer,chroma_location", "-of", "default=nw=1", output])
        #expect(tags.stdout.split(separator: "\n").sorted() == [
            "chroma_location=center", "color_primaries=bt709", "color_range=tv", "color_space=smpte170m", "color_transfer=iec61966-2-1",
        ])
        // 38.5 dB here (4:2:0 chroma costs this texture most of the rest); decoded with the wrong
        // matrix, 30.6 dB.
        let quality = psnr(try Tools.decodeFrame(output, index: 5, pixelFormat: "rgb24"), pattern.rgb)
        #expect(quality >= 36, "RGB PSNR \(quality) dB")
    }

    @Test func scaledAndRoundedToEvenSides() throws {
        let output = path("small.mp4")
        let result = try Tools.podium(["stream", "--constant-fps", "--frames", "10", "--scale", "0.33", "--to", output], display: server.display)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("106x79 rounded to 106x78"), "320x240 × 0.33 is 106x79")
        let probe = try Tools.probe(output)
        #expect(probe.width == 106 && probe.height == 78)
        #expect(probe.frames == 10)
        // Podium's scaling against FFmpeg's own scaling of the same picture.
        let quality = psnr(try Tools.decodeFrame(output, index: 5), try Tools.reference(pattern, width: 106, height: 78))
        #expect(quality >= 30, "PSNR \(quality) dB")
    }

    @Test func udpStreamDecodesInFFmpeg() throws {
        let port = Tools.freePort()
        let received = path("udp.ts")
        let receiver = try Tools.start("ffmpeg", ["-v", "error", "-y", "-i", "udp://127.0.0.1:\(port)?timeout=3000000", "-c", "copy", received])
        Thread.sleep(forTimeInterval: 1)
        let sent = try Tools.podium(["stream", "--constant-fps", "--frames", "90", "--no-cursor", "--to", "udp://127.0.0.1:\(port)"], display: server.display)
        #expect(sent.status == 0, "\(sent.stderr)")
        _ = try receiver.wait(timeout: 30)
        let probe = try Tools.probe(received)
        #expect(probe.frames >= 81, "decoded \(probe.frames) of 90 frames sent")
        let quality = psnr(try Tools.decodeFrame(received, index: probe.frames / 2), try Tools.reference(pattern))
        #expect(quality >= 40, "PSNR \(quality) dB")
    }

    @Test func tcpListenerServesFFmpeg() throws {
        let port = Tools.freePort()
        let sender = try Tools.start(Tools.podium.path, ["stream", "--constant-fps", "--duration", "4s", "--no-cursor", "--to", "tcp://127.0.0.1:\(port)?listen"],
                                     environment: ["DISPLAY": server.display])
        try sender.waitForStderr(containing: "capturing")
        Thread.sleep(forTimeInterval: 0.5)
        let received = path("tcp.ts")
        let receiver = try Tools.run("ffmpeg", ["-v", "error", "-y", "-i", "tcp://127.0.0.1:\(port)", "-c", "copy", received], timeout: 30)
        #expect(receiver.status == 0, "\(receiver.stderr)")
        #expect(try sender.wait(timeout: 30).status == 0)
        let probe = try Tools.probe(received)
        #expect(probe.frames >= 30, "a client that joins late still gets the rest, from a keyframe")
        let first = psnr(try Tools.decodeFrame(received, index: 0), try Tools.reference(pattern))
        #expect(first >= 40, "its first frame decodes whole: PSNR \(first) dB")
    }

    @Test func aSinkThatCannotConnectLeavesTheOthersRunning() throws {
        let output = path("kept.mkv")
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        let result = try Tools.podium(["stream", "--constant-fps", "--frames", "30", "--to", output, "--to", "tcp://127.0.0.1:1"], display: server.display)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("tcp://127.0.0.1:1"))
        #expect(try Tools.probe(output).frames == 30)
    }

    @Test func everySinkGoneExits74() throws {
        let result = try Tools.podium(["stream", "--constant-fps", "--frames", "30",
                                       "--to", "tcp://127.0.0.1:1?retry=off"], display: server.display)
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("every output failed"))
    }

    @Test func interruptLeavesAPlayableMP4OfTheRightLength() throws {
        let output = path("talk.mp4")
        let run = try Tools.start(Tools.podium.path, ["stream", "--constant-fps", "--to", output], environment: ["DISPLAY": server.display])
        try run.waitForStderr(containing: "capturing")
        Thread.sleep(forTimeInterval: 2)
        run.signal(SIGINT)
        let result = try run.wait(timeout: 20)
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try Tools.probe(output)
        let duration = try #require(probe.duration)
        #expect(abs(duration - 2) <= 0.2, "duration \(duration) s")
        #expect(probe.frames > 40)
    }

    @Test func losingTheXServerFinalizesTheRecording() throws {
        let own = try XvfbServer(width: 320, height: 240)
        let output = path("lost.mkv")
        let run = try Tools.start(Tools.podium.path, ["stream", "--constant-fps", "--to", output], environment: ["DISPLAY": own.display])
        try run.waitForStderr(containing: "capturing")
        Thread.sleep(forTimeInterval: 1.5)
        own.stop()
        let result = try run.wait(timeout: 20)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("lost the X display"))
        #expect(try Tools.probe(output).frames >= 30, "what was captured is kept, and the file plays")
    }

    @Test func statsJSONHasOneObjectASecondAndASummary() throws {
        let stats = path("stats.jsonl")
        let result = try Tools.podium(["stream", "--constant-fps", "--duration", "2500ms", "--quiet", "--stats-json", stats, "--to", path("s.ts")], display: server.display)
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty, "--quiet prints nothing: \(result.stderr)")
        let lines = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n")
        let objects = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == 3, "two seconds, then the summary")
        #expect(objects.last??["kind"] as? String == "summary")
        let frames = objects.last??["frames"] as? Int ?? 0
        #expect((70...76).contains(frames), "2.5 s at 30 fps: \(frames)")
    }
}

@Suite struct DisplaysCommandTests {
    @Test func jsonDescribesTheScreenAndMonitors() throws {
        let server = try XvfbServer(width: 800, height: 600)
        let result = try Tools.podium(["displays", "--json"], display: server.display)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["display"] as? String == server.display)
        let size = object["size"] as? [String: Int]
        #expect(size?["width"] == 800 && size?["height"] == 600)
        let monitors = try #require(object["monitors"] as? [[String: Any]])
        #expect(monitors.count == 1)
        let text = try Tools.podium(["displays"], display: server.display)
        #expect(text.stdout.contains("800x600+0+0"))
    }
}

extension StreamEndToEndTests {
    /// Damage-driven capture: a screen that does not change costs only the idle repeats, and a
    /// change is picked up at once.
    @Test func aStaticScreenSendsOnlyIdleRepeatsAndChangesGetThrough() throws {
        let output = path("static.mkv")
        let run = try Tools.start(Tools.podium.path, ["stream", "--display", server.display, "--no-cursor", "--fps", "30",
                                                     "--keyint", "1s", "--duration", "3s", "--to", output], environment: [:])
        Thread.sleep(forTimeInterval: 2)
        let changed = TestPattern(width: 320, height: 240, seed: 12)
        try Painter(display: server.display).draw(changed)
        let result = try run.wait(timeout: 20)
        #expect(result.status == 0, "\(result.stderr)")
        // The first frame, one repeat a second, and the frame of the change (90 at a constant 30 fps).
        let frames = try Tools.probe(output).frames
        #expect((3...6).contains(frames), "\(frames) frames")
        #expect(psnr(try Tools.decodeFrame(output, index: frames - 1), try Tools.reference(changed)) >= 40, "the change got through")
        #expect(result.stderr.contains("unchanged"))
        // Keyframes come by time even when frames are sparse: one at the start and one a second after.
        let packets = try Tools.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags", "-of", "csv=p=0", output])
        let keyframes = packets.stdout.split(separator: "\n").filter { $0.hasPrefix("K") }.count
        #expect(keyframes >= 2, "\(keyframes) keyframes in 3 s with --keyint 1s")
    }
}
