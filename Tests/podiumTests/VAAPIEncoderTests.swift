import Foundation
import PodiumTestSupport
import Testing

/// The GPU's encoder, with the tests' VA driver standing for the GPU (`FakeVA`): loaded by the real
/// libva through the test's X display, driven by FFmpeg's real `h264_vaapi`. What a user must be
/// able to count on: `podium encoders` says why a hardware encoder cannot be used; a run takes the
/// GPU's encoder when it works and software when it does not, at the start or while it runs, with
/// every picture kept and every output playable.
/// Processes: libva reads the driver's name and the failures asked for from the environment.
@Suite(.serialized) struct VAAPIEncoderTests {
    let server: XvfbServer
    let pattern: TestPattern
    let folder: URL

    init() throws {
        server = try XvfbServer(width: 320, height: 240)
        pattern = TestPattern(width: 320, height: 240, seed: 5)
        try Painter(display: server.display).draw(pattern)
        folder = try Tools.temporaryFolder()
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// `podium encoders --json`: each hardware encoder's reason, by name (`nil` for one that can be used).
    func reasons(_ environment: [String: String]) throws -> [String: String?] {
        let result = try Tools.podium(["encoders", "--json", "--vaapi-device", server.display],
                                      environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let entries = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
        var reasons: [String: String?] = [:]
        for entry in entries where entry["isHardware"] as? Bool == true {
            guard let name = entry["name"] as? String else { continue }
            reasons[name] = .some(entry["reason"] as? String)
        }
        return reasons
    }

    /// Without a driver, with one, and with one failing each way a real one does.
    @Test(arguments: [
        (nil, "no driver"), ("", nil), ("init", "driver init failed (operation failed)"),
        ("no-profile", "no H.264 profile"), ("no-entrypoint", "no encode entrypoint for H.264 High"),
        ("decode-only", "decode only"), ("config", "no 8-bit 4:2:0 encoding (operation failed)"),
        ("busy", "session limit"),
    ] as [(String?, String?)])
    func encodersSayWhyEachHardwareEncoderCannotBeUsed(failure: String?, said: String?) throws {
        let environment = try failure.map { try FakeVA(failing: $0.isEmpty ? [] : [$0]).environment } ?? [:]
        let reasons = try reasons(environment)
        #expect(reasons["h264_vaapi"] == .some(said), "\(reasons)")
        // HEVC is offered for decoding only, VP9 not at all; FFmpeg 5.1 has no AV1 VAAPI encoder.
        if failure != nil && failure != "init" {
            #expect(reasons["hevc_vaapi"] == .some("decode only") && reasons["vp9_vaapi"] == .some("no VP9 profile"),
                    "\(reasons)")
        }
        #expect(reasons["av1_vaapi"] == .some("not in this FFmpeg") && reasons["h264_nvenc"] == .some("no libcuda"),
                "\(reasons)")
    }

    /// The default (`--encoder auto`) takes the GPU's encoder when it works: the pictures go to it
    /// at the bit rate asked, and every output (MKV, MP4, MPEG-TS) decodes to the screen.
    @Test func theGPUsEncoderTakesTheScreenWhenItWorks() throws {
        let driver = try FakeVA()
        let outputs = ["gpu.mkv", "gpu.mp4", "gpu.ts"].map(path)
        let result = try Tools.podium(["stream", "--constant-fps", "--frames", "30", "-b", "1M", "--no-cursor",
                                       "--vaapi-device", server.display] + outputs.flatMap { ["--to", $0] },
                                      display: server.display, environment: driver.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("h264 with h264_vaapi on \(server.display) (nv12 320x240, 1Mbit/s"),
                "\(result.stderr)")
        // Its first picture is Podium's, for the stream's parameter sets; then the 30 of the run.
        let pictures = driver.pictures
        #expect(pictures.count == 31 && pictures.allSatisfy { $0.contains("rc=CBR bps=1000000") }, "\(pictures)")
        for output in outputs {
            let probed = try Tools.probe(output)
            #expect(probed.frames == 30, "\(output): \(probed)")
            let quality = psnr(try Tools.decodeFrame(output, index: 5, pixelFormat: "rgb24"), pattern.rgb)
            #expect(quality >= 34, "\(output): RGB PSNR \(quality) dB")
        }
    }

    /// A GPU encoder that refuses its first picture (at the start) or one later (while the run
    /// goes): software takes over at that picture, with a keyframe, on the same outputs; said once,
    /// naming both; nothing lost, every file decodes whole.
    @Test(arguments: [1, 20])
    func aFailingGPUEncoderHandsOverToSoftwareWithNothingLost(failingPicture: Int) throws {
        let driver = try FakeVA(failing: ["frame:\(failingPicture)"])
        let outputs = ["left-\(failingPicture).mkv", "left-\(failingPicture).mp4", "left-\(failingPicture).ts"]
            .map(path)
        let stats = path("left-\(failingPicture).json")
        let result = try Tools.podium(["stream", "--constant-fps", "--frames", "60", "-b", "1M", "--no-cursor",
                                       "--stats-json", stats, "--vaapi-device", server.display]
                                      + outputs.flatMap { ["--to", $0] },
                                      display: server.display, environment: driver.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("h264_vaapi") && $0.contains("libx264") }
        #expect(lines.count == 1, "said once: \(result.stderr)")
        #expect(!result.stderr.contains("ffmpeg:"), "FFmpeg's own lines stay detail: \(result.stderr)")
        let changes = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n")
            .filter { $0.contains(#""kind":"change""#) && $0.contains(#""setting":"encoder""#) }
        // At the start nothing changes: the run begins with software, as the heading says.
        #expect(changes.count == (failingPicture == 1 ? 0 : 1), "\(changes)")
        if failingPicture == 1 {
            #expect(result.stderr.contains("h264 with libx264"), "\(result.stderr)")
        }
        for output in outputs {
            #expect(try Tools.probe(output).frames == 60, "\(output)")
            let decoded = try Tools.run("ffmpeg", ["-v", "error", "-i", output, "-f", "null", "-"])
            #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(output): \(decoded.stderr)")
            let last = psnr(try Tools.decodeFrame(output, index: 59, pixelFormat: "rgb24"), pattern.rgb)
            #expect(last >= 34, "\(output): the last picture, software's, RGB PSNR \(last) dB")
        }
    }

    /// A new bit rate while the GPU encodes (`podium control set bitrate=…`): a second session at
    /// that rate takes over at a keyframe; the file decodes whole.
    @Test func aNewBitRateTakesASecondSessionAtAKeyframe() throws {
        let driver = try FakeVA()
        let output = path("retuned.mkv")
        var environment = driver.environment
        environment["DISPLAY"] = server.display
        let run = try Tools.start(Tools.podium.path, ["stream", "--constant-fps", "--frames", "150", "-b", "2M",
                                                      "--control", "--vaapi-device", server.display, "--to", output],
                                  environment: environment)
        try run.waitForStderr(containing: "capturing")
        Thread.sleep(forTimeInterval: 1)
        let set = try Tools.podium(["control", "--pid", "\(run.pid)", "set", "bitrate=500k"])
        #expect(set.status == 0, "\(set.stderr)")
        let result = try run.wait(timeout: 30)
        #expect(result.status == 0 && !result.stderr.contains("cannot change its rate"), "\(result.stderr)")
        let pictures = driver.pictures
        let retuned = pictures.firstIndex { $0.contains("bps=500000") }
        #expect(retuned.map { pictures[$0].contains(" IDR ") } == true, "\(pictures)")
        #expect(pictures.filter { $0.contains("bps=500000") }.count >= 30, "\(pictures)")
        #expect(try Tools.probe(output).frames == 150)
    }

    /// A ladder falls back per rendition: with one session free, one rendition gets the GPU and the
    /// other software, each said; both play. `--encoder software` leaves the GPU alone.
    @Test func eachRenditionFallsBackOnItsOwn() throws {
        let driver = try FakeVA(failing: ["sessions:1"])
        let large = path("large.mkv")
        let small = path("small.mkv")
        let result = try Tools.podium(["stream", "--constant-fps", "--frames", "30", "--encoder", "vaapi",
                                       "--vaapi-device", server.display, "--to", large,
                                       "--to", small + "?size=160x120"],
                                      display: server.display, environment: driver.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "with h264_vaapi on").count == 2, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "libx264 encodes instead").count == 2, "\(result.stderr)")
        for output in [large, small] { #expect(try Tools.probe(output).frames == 30, "\(output)") }

        let software = try FakeVA()
        let plain = try Tools.podium(["stream", "--constant-fps", "--frames", "10", "--encoder", "software",
                                      "--vaapi-device", server.display, "--to", path("software.mkv")],
                                     display: server.display, environment: software.environment)
        #expect(plain.status == 0 && plain.stderr.contains("with libx264"), "\(plain.stderr)")
        #expect(software.pictures.isEmpty, "\(software.pictures)")
    }
}
