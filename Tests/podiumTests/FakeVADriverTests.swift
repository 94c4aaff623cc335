import Foundation
import PodiumTestSupport
import Testing

/// The tests' VA driver stands for a GPU only if the real libva loads it through an X display and
/// FFmpeg's own VAAPI encoder gets from it a stream that decodes to the picture given, with the
/// keyframes and rate control asked for; and if it fails where it is told to, as drivers do.
@Suite struct FakeVADriverTests {
    let server: XvfbServer
    let folder: URL

    init() throws {
        server = try XvfbServer(width: 320, height: 240)
        folder = try Tools.temporaryFolder()
    }

    /// `ffmpeg` encoding 3 s of a test pattern with `h264_vaapi` on the fake, to MPEG-TS files, an
    /// encoder each (no packed headers, so no global header: parameter sets go before each keyframe).
    func encode(with driver: FakeVA, to outputs: String...) throws -> CommandResult {
        let names = outputs.indices.map { "[v\($0)]" }
        let uploaded = "[0:v]format=nv12,hwupload,split=\(outputs.count)\(names.joined())"
        let encodings = zip(names, outputs).flatMap { name, output in
            ["-map", name, "-c:v", "h264_vaapi", "-b:v", "1M", "-g", "30", output]
        }
        return try Tools.start("ffmpeg", ["-v", "error", "-y", "-init_hw_device",
                                          "vaapi=va:\(server.display),connection_type=x11", "-filter_hw_device", "va",
                                          "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "3",
                                          "-filter_complex", uploaded] + encodings,
                               environment: driver.environment).wait(timeout: 60)
    }

    @Test func ffmpegsVAAPIEncoderGetsAStreamThatDecodesToThePictureGiven() throws {
        let driver = try FakeVA()
        let output = folder.appendingPathComponent("fake.ts").path
        let result = try encode(with: driver, to: output)
        #expect(result.status == 0, "\(result.stderr)")
        let probed = try Tools.probe(output)
        #expect(probed.frames == 90, "\(probed)")
        let pictures = driver.pictures
        #expect(pictures.count == 90 && pictures.filter { $0.contains(" IDR ") }.count == 3, "\(pictures)")
        #expect(pictures.first?.contains("rc=VBR bps=2000000") == true, "as FFmpeg asked: \(pictures.first ?? "")")
        let compared = try Tools.run("ffmpeg", ["-v", "info", "-i", output, "-f", "lavfi", "-i",
                                                "testsrc2=size=320x240:rate=30", "-t", "3",
                                                "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"])
        let average = compared.stderr.split(separator: " ").first { $0.hasPrefix("average:") }
            .flatMap { Double($0.dropFirst("average:".count)) } ?? 0
        #expect(average > 38, "PSNR against the pattern: \(compared.stderr.suffix(300))")
    }

    /// Each failure where a real driver's would be: FFmpeg says it in its own words.
    @Test(arguments: [("init", "Input/output error"), ("decode-only", "No usable encoding entrypoint"),
                      ("no-entrypoint", "No usable encoding entrypoint"),
                      ("context", "Failed to create encode pipeline context: 2"), ("frame:10", "Encode failed")])
    func itFailsWhereItIsTold(failure: String, said: String) throws {
        let driver = try FakeVA(failing: [failure])
        let result = try encode(with: driver, to: folder.appendingPathComponent("failed-\(failure).ts").path)
        #expect(result.status != 0 && result.stderr.contains(said), "\(result.stderr)")
        if failure == "frame:10" { #expect(driver.pictures.count == 9, "\(driver.pictures)") }
    }

    /// A session limit: one encoder opens, a second is refused (MAX_NUM_EXCEEDED, 11).
    @Test func aSecondSessionPastTheLimitIsRefused() throws {
        let one = try encode(with: FakeVA(failing: ["sessions:1"]), to: folder.appendingPathComponent("one.ts").path)
        #expect(one.status == 0, "\(one.stderr)")
        let two = try encode(with: FakeVA(failing: ["sessions:1"]), to: folder.appendingPathComponent("a.ts").path,
                             folder.appendingPathComponent("b.ts").path)
        #expect(two.status != 0 && two.stderr.contains("Failed to create encode pipeline context: 11"), "\(two.stderr)")
    }
}
