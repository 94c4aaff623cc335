import Foundation
import PodiumTestSupport
import Testing

/// Pushes to real media servers: nginx-rtmp (the configuration in `Scripts/`), `srt-live-transmit`
/// and GStreamer's `srtsrc` for SRT, and `ffmpeg` as an RTSP server taking RECORD. Each reception
/// is decoded; secrets never reach Podium's output. One at a time: each runs a display, a scene,
/// Podium and its peers, and eight at once load a two-core machine enough to slow the suites that
/// run beside them (a scene's frames came two to a grab).
@Suite(.serialized, .programThreads) struct PushTests {
    /// The moving `video` scene on a 320x240 display, and a folder for the files.
    private struct Stage {
        let server: XvfbServer
        let scene: RunningCommand
        let folder: URL

        init() async throws {
            server = try XvfbServer(width: 320, height: 240)
            scene = try Tools.scene(on: server.display)
            folder = try Tools.temporaryFolder()
        }

        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

        /// `podium stream` on this display, with `arguments`.
        func stream(_ arguments: [String]) throws -> ProgramRun {
            ProgramRun.start(["stream", "--display", server.display] + arguments)
        }

        func stop() { _ = try? scene.interrupt() }
    }

    /// `path` decodes without a word from ffprobe's decoder, starting on a keyframe, with at least
    /// `frames` frames.
    ///
    /// Decoded by ffprobe rather than `ffmpeg -f null`: on a busy machine two grabs can fall in one
    /// 1/30 s tick, and ffmpeg's output would complain about its own timestamps, not the stream.
    private func expectDecodes(_ path: String, frames: Int, codec: String = "h264", size: String = "320x240",
                               sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let decoded = try Tools.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                "-show_entries", "stream=codec_name,width,height,nb_read_frames",
                                                "-of", "csv=p=0", path])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(path): \(decoded.stderr)",
                sourceLocation: sourceLocation)
        // MPEG-TS lists the stream under its program too.
        let fields = decoded.stdout.split(separator: "\n").first?.split(separator: ",").map(String.init) ?? []
        let expected = [codec] + size.split(separator: "x").map(String.init)
        #expect(Array(fields.prefix(3)) == expected, "\(path): \(decoded.stdout)", sourceLocation: sourceLocation)
        let count = fields.count == 4 ? Int(fields[3]) ?? 0 : 0
        #expect(count >= frames, "\(path): \(count) frames", sourceLocation: sourceLocation)
        let flags = try Tools.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags",
                                              "-of", "csv=p=0", path])
        #expect(flags.stdout.hasPrefix("K"), "\(path) starts on a keyframe", sourceLocation: sourceLocation)
    }

    /// What ffprobe finds playing `url` over RTMP: `codec,width,height`.
    private func playedStream(_ url: String) throws -> String {
        let probe = try Tools.run("ffprobe", ["-v", "error", "-analyzeduration", "1000000",
                                              "-show_entries", "stream=codec_name,width,height",
                                              "-of", "csv=p=0", url], timeout: 20)
        return probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: RTMP
    //
    // A player of RTMP is told to expect audio as well (libavformat's RTMP client makes up an FLV
    // header saying so), and probes 5 s for it unless told to stop sooner: hence -analyzeduration.

    /// One push, read back three ways while it runs: ffprobe and GStreamer play it over RTMP, and
    /// ffmpeg reads nginx's HLS playlist over HTTP.
    @Test func rtmpToNginxIsPlayedOverRTMPAndHLS() async throws {
        let stage = try await Stage()
        defer { stage.stop() }
        let nginx = try MediaServer()
        let run = try stage.stream(["--duration", "10s", "--keyint", "1s", "--to", nginx.publishURL,
                                    "--to", stage.path("rec.mkv"), "--stats-json", stage.path("stats.jsonl")])
        try await run.waitForStderr(containing: "capturing")
        try await Task.sleep(for: .seconds(2))

        #expect(try playedStream(nginx.publishURL) == "h264,320,240")
        // Thirty decoded pictures, then the end of the stream: a decoder that got nothing never ends.
        let gstreamer = try Tools.run("gst-launch-1.0", [
            "-q", "rtmp2src", "location=\(nginx.publishURL)", "!", "flvdemux", "!", "h264parse", "!", "avdec_h264",
            "!", "fakesink", "num-buffers=30",
        ], timeout: 20)
        #expect(gstreamer.status == 0, "\(gstreamer.stderr)")
        let hls = try Tools.run("ffmpeg", ["-v", "error", "-i", nginx.playlistURL, "-map", "0:v", "-c", "copy",
                                           "-y", stage.path("hls.ts")], timeout: 20)
        #expect(hls.status == 0, "\(hls.stderr)")
        try await expectDecodes(stage.path("hls.ts"), frames: 30)

        let result = try await run.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Tools.probe(stage.path("rec.mkv")).frames >= 150, "10 s at 30 fps, or half of it when busy")
        // The stream key is shown masked, and appears nowhere.
        #expect(result.stderr.contains("rtmp://127.0.0.1:\(nginx.rtmpPort)/live/••••"), "\(result.stderr)")
        let stats = try String(contentsOfFile: stage.path("stats.jsonl"), encoding: .utf8)
        #expect(!result.stderr.contains(nginx.key) && !stats.contains(nginx.key))
    }

    /// A key nginx refuses ends that output at once with a clear line; the recording beside it goes
    /// on. Alone, the run ends 77.
    @Test func aRefusedStreamKeyEndsThatOutputAtOnce() async throws {
        let stage = try await Stage()
        defer { stage.stop() }
        let nginx = try MediaServer()
        let wrong = "rtmp://127.0.0.1:\(nginx.rtmpPort)/live/wrong\(nginx.key)"
        let beside = try await stage.stream(["--duration", "4s", "--to", wrong, "--to", stage.path("rec.mkv")])
            .wait(timeout: 30)
        #expect(beside.status == 0, "\(beside.stderr)")
        let refusal = "rtmp://127.0.0.1:\(nginx.rtmpPort)/live/••••: "
            + "the server closed the connection when asked to publish"
        #expect(beside.stderr.components(separatedBy: refusal).count == 2, "said once: \(beside.stderr)")
        #expect(!beside.stderr.contains("trying again"), "\(beside.stderr)")
        #expect(try Tools.probe(stage.path("rec.mkv")).frames >= 60, "4 s at 30 fps, or half of it when busy")

        let alone = try await stage.stream(["--duration", "10s", "--to", wrong]).wait(timeout: 30)
        #expect(alone.status == 77, "\(alone.stderr)")
        #expect(alone.stderr.contains(refusal) && !alone.stderr.contains(nginx.key), "\(alone.stderr)")
    }

    /// RTMPS checks the server's certificate: one of the server's own making is refused unless
    /// `?ca=` names it, and then the stream gets through.
    @Test func rtmpsTrustsOnlyACertificateThatChecksOut() async throws {
        let stage = try await Stage()
        defer { stage.stop() }
        let nginx = try MediaServer()
        let tls = try TLSFront(forwardingTo: nginx.rtmpPort)
        let url = "rtmps://127.0.0.1:\(tls.port)/live/\(nginx.key)"
        let refused = try await stage.stream(["--duration", "3s", "--to", url]).wait(timeout: 30)
        #expect(refused.status == 77, "\(refused.stderr)")
        let refusal = "rtmps://127.0.0.1:\(tls.port)/live/••••: the server's certificate is not trusted"
        #expect(refused.stderr.contains(refusal), "\(refused.stderr)")
        let run = try stage.stream(["--duration", "6s", "--keyint", "1s", "--to", url + "?ca=\(tls.certificate)"])
        try await run.waitForStderr(containing: "capturing")
        try await Task.sleep(for: .seconds(1))
        #expect(try playedStream(nginx.publishURL) == "h264,320,240")
        let result = try await run.wait(timeout: 30)
        #expect(result.status == 0 && !result.stderr.contains(nginx.key), "\(result.stderr)")
    }

    /// nginx stops 3 s into a 16 s run and starts again 3 s later: Podium reconnects, the second
    /// reception decodes from its first frame, and the recording has every frame. (Backoff may put
    /// the reconnection 4 s after the restart, and a player probes a few seconds: hence 16 s.)
    @Test func rtmpReconnectsWhenTheServerRestarts() async throws {
        let stage = try await Stage()
        defer { stage.stop() }
        let nginx = try MediaServer()
        let run = try stage.stream(["--duration", "16s", "--keyint", "1s", "--to", nginx.publishURL,
                                    "--to", stage.path("rec.mkv"), "--stats-json", stage.path("stats.jsonl")])
        try await run.waitForStderr(containing: "capturing")
        try await Task.sleep(for: .seconds(3))
        nginx.stop()
        try await run.waitForStderr(containing: "reconnecting")
        try await Task.sleep(for: .seconds(3))
        try nginx.start()
        try await run.waitForStderr(containing: "connected again after")
        let second = try Tools.run("ffmpeg", ["-v", "error", "-analyzeduration", "1000000", "-i", nginx.publishURL,
                                              "-t", "3", "-c", "copy", "-y", stage.path("second.ts")], timeout: 20)
        #expect(second.status == 0, "\(second.stderr)")
        // At least half the scene's 30 fps for 3 s: a machine busy with other tests slows the scene.
        try await expectDecodes(stage.path("second.ts"), frames: 45)

        let result = try await run.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let masked = "rtmp://127.0.0.1:\(nginx.rtmpPort)/live/••••"
        #expect(result.stderr.contains("\(masked) 1 outage,"), "the summary counts it: \(result.stderr)")
        let summaryLine = try String(contentsOfFile: stage.path("stats.jsonl"), encoding: .utf8)
            .split(separator: "\n").last.map(String.init) ?? ""
        let summary = try JSONSerialization.jsonObject(with: Data(summaryLine.utf8)) as? [String: Any] ?? [:]
        let sink = (summary["sinks"] as? [[String: Any]])?.first { $0["url"] as? String == masked }
        #expect(sink?["outages"] as? Int == 1, "\(summaryLine)")
        let lost = sink?["secondsLost"] as? Double ?? 0
        #expect((2.5...8).contains(lost), "\(lost) s lost")
        let encoded = try #require(summary["frames"] as? Int)
        #expect(encoded >= 240, "16 s at 30 fps, or at least half of it on a busy machine")
        #expect(try Tools.probe(stage.path("rec.mkv")).frames == encoded)
    }

    // MARK: SRT

    /// `srt-live-transmit`, listening, writes what it receives to `path` and ends when the caller
    /// leaves (`-a no`: otherwise it waits for another, its output still in its buffer).
    private func srtReceiver(port: Int, query: String = "", into path: String) throws -> RunningCommand {
        try Tools.start("/bin/bash", ["-c", "exec srt-live-transmit -q -a no \"$1\" file://con > \"$2\"",
                                      "srt-receiver",
                                      "srt://127.0.0.1:\(port)?mode=listener\(query)", path])
    }

    /// Two SRT receivers at once, both listeners Podium calls: `srt-live-transmit` writing a file,
    /// and GStreamer's `srtsrc` decoding; with and without a passphrase.
    @Test(arguments: [nil, "correct-horse-battery"])
    func srtToTwoListeners(passphrase: String?) async throws {
        let stage = try await Stage()
        defer { stage.stop() }
        let (transmitPort, gstreamerPort) = (Tools.freePort(), Tools.freePort())
        // A generous latency, so SRT has time to send again what a busy machine lost.
        let secret = "&latency=1000" + (passphrase.map { "&passphrase=\($0)" } ?? "")
        // Nor does the file's receiver skip what came too late (a busy machine once cost a
        // macroblock of one picture so): it waits, and the file decodes whole.
        let transmit = try srtReceiver(port: transmitPort, query: secret + "&tlpktdrop=0", into: stage.path("srt.ts"))
        defer { transmit.signal(SIGKILL) }
        // Sixty decoded pictures, then the end of the stream: a decoder that got nothing never ends.
        let gstreamer = try Tools.start("gst-launch-1.0", [
            "-q", "srtsrc", "uri=srt://127.0.0.1:\(gstreamerPort)?mode=listener\(secret)", "!", "tsdemux", "!",
            "h264parse", "!", "avdec_h264", "!", "fakesink", "num-buffers=60",
        ])
        defer { gstreamer.signal(SIGKILL) }
        try await Task.sleep(for: .seconds(0.5))
        let query = "?latency=1000" + (passphrase.map { "&passphrase=\($0)" } ?? "")
        let result = try await stage.stream([
            "--duration", "5s", "--keyint", "1s",
            "--to", "srt://127.0.0.1:\(transmitPort)\(query)", "--to", "srt://127.0.0.1:\(gstreamerPort)\(query)",
        ]).wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let decoded = try gstreamer.wait(timeout: 10)
        #expect(decoded.status == 0, "GStreamer decodes 60 pictures: \(decoded.stderr)")
        // Its status is not Podium's outcome: on a busy machine the hang-up can outlast libsrt's
        // linger and reach it as "Connection was broken" (255). What it wrote is.
        _ = try transmit.wait(timeout: 10)
        // Up to 150 frames sent; the receiver holds the last second (the latency) when Podium hangs
        // up, and a busy machine slows the scene.
        try await expectDecodes(stage.path("srt.ts"), frames: 60)
        if let passphrase {
            #expect(!result.stderr.contains(passphrase), "\(result.stderr)")
            #expect(result.stderr.contains("srt://127.0.0.1:\(gstreamerPort)?passphrase=••••&latency=1000"),
                    "\(result.stderr)")
        }
    }

    /// A listener that wants another passphrase: that output ends at once with libsrt's reason,
    /// and the recording goes on.
    @Test func aWrongPassphraseEndsThatOutputWithTheListenersReason() async throws {
        let stage = try await Stage()
        defer { stage.stop() }
        let port = Tools.freePort()
        let transmit = try srtReceiver(port: port, query: "&passphrase=the-right-one", into: stage.path("srt.ts"))
        defer { transmit.signal(SIGKILL) }
        try await Task.sleep(for: .seconds(0.5))
        let result = try await stage.stream(["--duration", "4s",
                                             "--to", "srt://127.0.0.1:\(port)?passphrase=a-wrong-one",
                                             "--to", stage.path("rec.mkv")]).wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let refusal = "srt://127.0.0.1:\(port)?passphrase=••••: "
            + "the listener rejected the connection: Incorrect passphrase"
        #expect(result.stderr.contains(refusal), "\(result.stderr)")
        #expect(!result.stderr.contains("a-wrong-one") && !result.stderr.contains("trying again"), "\(result.stderr)")
        #expect(try Tools.probe(stage.path("rec.mkv")).frames >= 60, "4 s at 30 fps, or half of it when busy")
    }

    /// `?mode=listener`: Podium waits, and `srt-live-transmit` calls it, and keeps what it gets
    /// until Podium's run ends the connection: a caller stopped by a signal would cut the file in
    /// the middle of a picture. Its latency of 1 s lets it wait out a starved second on a busy
    /// machine; at SRT's default 120 ms a packet that comes too late is dropped, by design.
    @Test func podiumAsAnSRTListener() async throws {
        let stage = try await Stage()
        defer { stage.stop() }
        let port = Tools.freePort()
        let run = try stage.stream(["--duration", "5s", "--keyint", "1s",
                                    "--to", "srt://127.0.0.1:\(port)?mode=listener"])
        try await run.waitForStderr(containing: "capturing")
        try await Task.sleep(for: .seconds(1))
        let caller = try Tools.start("/bin/bash", [
            "-c", "exec srt-live-transmit -q -a no \"$1\" file://con > \"$2\"", "srt-caller",
            "srt://127.0.0.1:\(port)?latency=1000", stage.path("called.ts"),
        ])
        defer { caller.signal(SIGKILL) }
        let result = try await run.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let called = try caller.wait(timeout: 10)
        #expect(called.status == 0, "\(called.stderr)")
        try await expectDecodes(stage.path("called.ts"), frames: 45)
    }

    // MARK: RTSP

    /// RTSP ANNOUNCE/RECORD to `ffmpeg -rtsp_flags listen`, which keeps what it gets.
    @Test(arguments: [("h264", "tcp"), ("hevc", "udp")])
    func rtspRecordToAnFFmpegServer(codec: String, transport: String) async throws {
        let stage = try await Stage()
        defer { stage.stop() }
        let port = Tools.freePort()
        let server = try Tools.start("ffmpeg", ["-v", "error", "-rtsp_flags", "listen",
                                                "-i", "rtsp://127.0.0.1:\(port)/live", "-c", "copy", "-y",
                                                stage.path("rtsp.ts")])
        // It takes the first connection for the publisher: nothing may knock to see if it is up.
        try await Task.sleep(for: .seconds(1))
        let result = try await stage.stream(["--duration", "4s", "--keyint", "1s", "--codec", codec,
                                       "--to", "rtsp://127.0.0.1:\(port)/live?transport=\(transport)"])
            .wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let received = try server.wait(timeout: 10)
        #expect(received.status == 0, "\(received.stderr)")
        try await expectDecodes(stage.path("rtsp.ts"), frames: 60, codec: codec)
    }
}
