import Foundation
import PodiumTestSupport
import Testing

/// Refused input as only the program shows it: the exit code, one `podium: ` line on stderr and no
/// file. Every refusal's wording and code is checked in-process (`RefusalTests`); these are one of
/// each way the program ends a command line (ArgumentParser's refusal, Podium's, a display's) and
/// what needs the environment or a run.
@Suite struct BadInputTests {
    @Test(arguments: [
        (["--fps", "abc"], Int32(64), "The value 'abc' is invalid for '--fps"),
        (["--crf", "20", "-b", "2M"], 64, "--crf and --bitrate cannot be combined"),
        (["--monitor", "DP-9"], 69, "screen"),
        // Refused as the run is built, by the encoder itself, before any output is opened.
        (["--size", "16384x16384"], 64, "--size 16384x16384"),
        (["--codec", "mjpeg", "--crf", "20"], 64, "has no constant quality"),
        (["--encoder", "h264_nvenc"], 69, "h264_nvenc"),
        // The stream key is masked everywhere the program writes, not only in the line it ends with.
        (["--to", "rtmps://127.0.0.1/live/SECRETKEY?retry=maybe"], 64, "rtmps://127.0.0.1/live/••••"),
    ])
    func refused(arguments: [String], status: Int32, mentions: String) throws {
        let server = try XvfbServer(width: 320, height: 240)
        let folder = try Tools.temporaryFolder()
        let output = arguments.contains("--to") ? [] : ["--to", folder.appendingPathComponent("out.mkv").path]
        let result = try Tools.podium(["stream"] + arguments + output, display: server.display)
        try expectRefusal(result, status: status, mentions: mentions, folder: folder)
        #expect(!result.stderr.contains("SECRETKEY") && !result.stdout.contains("SECRETKEY"), "\(result.stderr)")
    }

    @Test func noDisplayAtAll() throws {
        let folder = try Tools.temporaryFolder()
        let result = try Tools.podium(["stream", "--to", folder.appendingPathComponent("a.mkv").path])
        try expectRefusal(result, status: 69, mentions: "DISPLAY", folder: folder)
    }

    /// The tiniest regions are recorded (as 2x2, the smallest 4:2:0 picture), not a crash.
    @Test(arguments: ["1x1+0+0", "1x1+319+239", "2x2+5+5", "3x1+0+0"])
    func tinyRegions(_ region: String) throws {
        let server = try XvfbServer(width: 320, height: 240)
        let output = try Tools.temporaryFolder().appendingPathComponent("tiny.mkv").path
        let result = try Tools.podium(["stream", "--region", region, "--frames", "3", "--constant-fps", "--to", output],
                                      display: server.display)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Tools.probe(output).frames == 3)
    }

    /// An existing file is kept without --overwrite (in-process: RefusalTests), and replaced with it.
    @Test func existingOutputIsReplacedWithOverwrite() throws {
        let server = try XvfbServer(width: 320, height: 240)
        let existing = try Tools.temporaryFolder().appendingPathComponent("keep.mkv")
        try Data("precious".utf8).write(to: existing)
        let replaced = try Tools.podium(["stream", "--constant-fps", "--frames", "5", "--overwrite",
                                         "--to", existing.path],
                                        display: server.display)
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try Tools.probe(existing.path).frames == 5)
    }

    @Test func benchKeepsAnExistingPlot() throws {
        let folder = try Tools.temporaryFolder()
        let plot = folder.appendingPathComponent("keep.svg")
        try Data("precious".utf8).write(to: plot)
        let result = try Tools.podium(["bench", "--scene", "static", "--fps", "5", "--seconds", "1",
                                       "--plot", plot.path])
        #expect(result.status == 73 && result.stderr.contains("--plot"), "\(result.stderr)")
        #expect(try String(contentsOf: plot, encoding: .utf8) == "precious")
    }

    func expectRefusal(_ result: CommandResult, status: Int32, mentions: String, folder: URL) throws {
        #expect(result.status == status, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(result.stderr)")
        #expect(lines.first?.hasPrefix("podium: ") == true)
        #expect(result.stderr.contains(mentions), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "nothing created")
    }
}
