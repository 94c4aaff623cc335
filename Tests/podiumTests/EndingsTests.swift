import Foundation
import PodiumCore
import PodiumTestSupport
import Testing

/// Every way a run can end (signals, a kill, a closed pipe, a full disk) leaves recordings that
/// decode, and nothing traps on the way.
@Suite(.serialized) struct EndingsTests {
    let server: XvfbServer
    let folder: URL

    init() throws {
        server = try XvfbServer(width: 320, height: 240)
        folder = try Tools.temporaryFolder()
        try Painter(display: server.display).draw(TestPattern(width: 320, height: 240, seed: 31))
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Starts `podium stream` on the test display and waits until capture runs.
    func startStream(_ arguments: [String]) throws -> RunningCommand {
        let run = try Tools.start(Tools.podium.path, ["stream", "--display", server.display] + arguments)
        try run.waitForStderr(containing: "capturing")
        return run
    }

    /// `podium scene` drawing moving content on the test display until stopped.
    func startScene(_ kind: String, fps: Int = 30) throws -> RunningCommand {
        try Tools.scene(kind, on: server.display, fps: fps)
    }

    /// Seconds between the first and the last frame `ffmpeg` decodes from `path`.
    func decodedSeconds(_ path: String) throws -> Double {
        let times = try Tools.frameTimes(path)
        guard let first = times.first, let last = times.last else { return 0 }
        return last - first
    }

    /// Ctrl-C finalizes an MP4, whose index is written last: it plays, as long as it ran.
    @Test func interruptLeavesAPlayableMP4OfTheRightLength() throws {
        let output = path("talk.mp4")
        let run = try startStream(["--constant-fps", "--to", output])
        Thread.sleep(forTimeInterval: 2)
        let result = try run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("SIGINT: stopping; press Ctrl-C again to quit at once"))
        let probe = try Tools.probe(output)
        let duration = try #require(probe.duration)
        #expect(abs(duration - 2) <= 0.2, "duration \(duration) s")
        #expect(probe.frames > 40)
    }

    @Test(arguments: ["SIGHUP", "SIGQUIT", "SIGTERM"])
    func signalsFinalize(name: String) throws {
        let number = ["SIGHUP": SIGHUP, "SIGQUIT": SIGQUIT, "SIGTERM": SIGTERM][name] ?? SIGTERM
        let output = path("\(name).mkv")
        let run = try startStream(["--to", output])
        Thread.sleep(forTimeInterval: 1.2)
        run.signal(number)
        let result = try run.wait(timeout: 20)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("\(name): stopping; send it again to quit at once"))
        #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("crashed"))
        #expect(try Tools.probe(output).frames >= 2)
    }

    /// Terminals and `timeout` often send two signals at once: the second is the same request.
    @Test func twoInterruptsAtOnceAreOneStop() throws {
        let output = path("twice.mkv")
        let run = try startStream(["--to", output])
        Thread.sleep(forTimeInterval: 1.2)
        run.signal(SIGINT)
        usleep(5_000)
        run.signal(SIGINT)
        let result = try run.wait(timeout: 20)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("quitting without finalizing"))
        #expect(try Tools.probe(output).frames >= 2)
    }

    /// A second Ctrl-C well after the first quits at once, even while an output is stuck.
    @Test func aLaterSecondInterruptQuitsAtOnce() throws {
        let run = try startStream(["--to", "tcp://127.0.0.1:\(Tools.freePort())?listen"])
        run.signal(SIGINT)
        Thread.sleep(forTimeInterval: 1.3)
        run.signal(SIGINT)
        let result = try run.wait(timeout: 20)
        #expect(result.status == 0 || result.status == 130, "\(result.stderr)")
    }

    /// Ctrl-C moments after the start is honoured: the run ends, it does not go on forever.
    @Test(arguments: [0.05, 0.1, 0.15, 0.3])
    func interruptWhileStarting(after seconds: Double) throws {
        let output = path("early-\(seconds).mkv")
        let run = try Tools.start(Tools.podium.path, ["stream", "--display", server.display, "--to", output])
        Thread.sleep(forTimeInterval: seconds)
        run.signal(SIGINT)
        let result = try run.wait(timeout: 20)
        // Before Podium's own handler is in place the default action ends it (128 + 2).
        #expect(result.status == 0 || result.status == 130, "\(result.stderr)")
    }

    /// A listener nobody joined is not a failure when the user stops the run.
    @Test func interruptedListenerNobodyJoinedIsAStop() throws {
        let run = try startStream(["--to", "tcp://127.0.0.1:\(Tools.freePort())?listen"])
        Thread.sleep(forTimeInterval: 1)
        let result = try run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("error"))
    }

    /// An HLS ladder killed mid-segment: every segment its playlists list is whole.
    @Test func aKilledLadderLeavesEveryListedSegmentWhole() throws {
        let scene = try startScene("video")
        defer { _ = try? scene.interrupt() }
        let master = path("hls/live.m3u8")
        let run = try startStream(["--to", master + "?ladder=320x240,160x120"])
        Thread.sleep(forTimeInterval: 3.5)
        run.signal(SIGKILL)
        _ = try run.wait(timeout: 10)
        let announced = try PlaylistFiles.variants(master)
        #expect(announced.map { $0["RESOLUTION"] ?? "" } == ["320x240", "160x120"])
        for variant in announced {
            let media = try PlaylistFiles.segments(path("hls/" + (variant["URI"] ?? "")))
            #expect(!media.ended, "a killed run did not close its playlists")
            #expect(media.files.count >= 2, "\(media.files)")
            for segment in media.files { #expect(try PlaylistFiles.problem(ofSegment: segment) == nil) }
        }
    }

    /// `kill -9` three seconds into moving, low-bitrate content: each container decodes at least
    /// two seconds (all but the last ~1 s).
    @Test func killedRecordingsDecode() throws {
        let scene = try startScene("slides")
        defer { _ = try? scene.interrupt() }
        let outputs = ["killed.mkv", "killed.mp4", "killed.ts"].map(path)
        let run = try startStream(["--bitrate", "500k"] + outputs.flatMap { ["--to", $0] })
        Thread.sleep(forTimeInterval: 3)
        run.signal(SIGKILL)
        _ = try? run.wait(timeout: 10)
        for output in outputs {
            let seconds = try decodedSeconds(output)
            #expect(seconds >= 2, "\(output): \(seconds) s decode")
        }
    }

    /// `podium stream … 2>&1 | head -2`: stderr goes away; Podium stops printing and records on.
    @Test func stderrClosedByItsReader() throws {
        let output = path("piped.mkv")
        let command = "'\(Tools.podium.path)' stream --display \(server.display) --duration 3s --to '\(output)' "
            + "2>&1 | head -2; exit ${PIPESTATUS[0]}"
        let result = try Tools.run("/bin/bash", ["-c", command], timeout: 30)
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.split(separator: "\n").count == 2)
        #expect(try Tools.probe(output).frames >= 2)
    }

    /// stderr on a full disk (`/dev/full` answers every write with ENOSPC), and `--stats-json`
    /// there too: the statistics file is reported once (nowhere to print) and the recording is whole.
    @Test func stderrAndStatisticsOnAFullDisk() throws {
        let output = path("full-stderr.mkv")
        let command = "exec '\(Tools.podium.path)' stream --display \(server.display) --duration 2s "
            + "--stats-json /dev/full --to '\(output)' 2>/dev/full"
        let result = try Tools.run("/bin/bash", ["-c", command], timeout: 30)
        #expect(result.status == 0)
        #expect(try Tools.probe(output).frames >= 2)
        // With stderr working, the statistics file's fault is said once.
        let said = try Tools.podium(["stream", "--duration", "2500ms", "--stats-json", "/dev/full", "--overwrite",
                                     "--to", output], display: server.display)
        #expect(said.status == 0, "\(said.stderr)")
        let fault = "--stats-json '/dev/full': writing failed"
        #expect(said.stderr.components(separatedBy: fault).count == 2, "\(said.stderr)")
        #expect(try Tools.probe(output).frames >= 2)
    }

    /// `/dev/stdout` is written through, never replaced, even with `--overwrite`.
    @Test(arguments: [["--overwrite"], []])
    func statisticsThroughDevStdoutKeepTheSymlink(_ overwrite: [String]) throws {
        let arguments = ["stream", "--duration", "1500ms", "--stats-json", "/dev/stdout", "--to", path("devstdout.mkv")]
        let result = try Tools.podium(arguments + overwrite, display: server.display)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"kind\":\"summary\""))
        let type = try FileManager.default.attributesOfItem(atPath: "/dev/stdout")[.type] as? FileAttributeType
        #expect(type == .typeSymbolicLink, "/dev/stdout is still a symlink")
    }

    @Test func statisticsToAOneCharacterName() throws {
        let command = "cd '\(folder.path)' && exec '\(Tools.podium.path)' stream --display \(server.display) "
            + "--duration 1500ms --stats-json s --to o.mkv"
        let result = try Tools.run("/bin/bash", ["-c", command], timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOfFile: path("s"), encoding: .utf8).contains("\"kind\":\"summary\""))
    }
}
