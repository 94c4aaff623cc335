import Foundation
import PodiumCore
import PodiumTestSupport
import Testing

/// Changing a run as it goes with `podium control` on the run's control socket, and what the
/// recordings and `--stats-json` make of it. The terminal's keys: podiumTests' TuneLiveTests.
@Suite(.serialized, .programThreads) struct TuneLiveTests {
    let server: XvfbServer
    let folder: URL

    init() async throws {
        server = try XvfbServer(width: 640, height: 360)
        folder = try Tools.temporaryFolder()
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The video packets of `path`: their times, sizes and whether each is a keyframe.
    func packets(_ path: String) throws -> [(time: Double, size: Int, isKeyframe: Bool)] {
        let listed = try Tools.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                               "packet=pts_time,size,flags", "-of", "csv=p=0", path]).stdout
        return listed.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",")
            guard fields.count == 3, let time = Double(fields[0]), let size = Int(fields[1]) else { return nil }
            return (time, size, fields[2].hasPrefix("K"))
        }
    }

    /// An encoder that cannot change its bit rate in flight (x265, libvpx, SVT-AV1) hands over to
    /// one opened at the new rate, with a keyframe: the recording goes on whole, one stream, and
    /// its bit rate follows.
    @Test(arguments: ["hevc", "vp9", "av1"])
    func anEncoderThatCannotRetuneHandsOverWithAKeyframe(codec: String) async throws {
        let scene = try Tools.scene("video", on: server.display)
        defer { _ = try? scene.interrupt() }
        let output = path("handover-\(codec).mkv"), stats = path("handover-\(codec).json")
        let run = ProgramRun.start(["stream", "--display", server.display, "--codec", codec,
                                    "-b", "2M", "--control", "--to", output, "--stats-json", stats])
        try await run.waitForStderr(containing: "capturing")
        try await Task.sleep(for: .seconds(3))
        let lower = try await ProgramRun.podium(["control", "--socket", run.controlSocket, "set", "bitrate=250k"])
        #expect(lower.stdout == "bitrate 2Mbit/s → 250kbit/s, by control\n", "\(lower)")
        try await Task.sleep(for: .seconds(3))
        let result = try await run.interrupt()
        #expect(result.status == 0 && !result.stderr.contains("warning"), "\(result.stderr)")

        #expect(try Tools.decodesCleanly(output))
        let changed = try #require(try Tools.statsRecords(stats, kind: "change").first?["elapsed"] as? Double)
        let packets = try packets(output)
        let keyframes = packets.filter(\.isKeyframe).map(\.time)
        #expect(keyframes.contains { abs($0 - changed) < 0.4 },
                "a keyframe where the new encoder took over, at \(changed) s: \(keyframes)")
        let before = packets.bitsPerSecond(in: 1..<changed)
        let after = packets.bitsPerSecond(in: changed + 1..<changed + 3)
        #expect(after < before * 0.4, "the bit rate fell: \(before / 1e6) → \(after / 1e6) Mbit/s")
    }

    /// `record pause` and `record resume`: one file with the pause cut out. The scene's own clock,
    /// stamped in each picture, jumps by the pause once, where the file's times go on a frame
    /// apart; the stats say what is recording, paused or not.
    @Test func aPausedRecordingIsOneFileWithThePauseCutOut() async throws {
        let scene = try Tools.scene("video", on: server.display)
        defer { _ = try? scene.interrupt() }
        let stats = path("paused.json"), part = path("paused.mkv")
        let run = ProgramRun.start(["stream", "--display", server.display, "--control",
                                    "--to", path("whole.mkv"), "--stats-json", stats])
        try await run.waitForStderr(containing: "capturing")
        func control(_ words: String...) async throws -> CommandResult {
            try await ProgramRun.podium(["control", "--socket", run.controlSocket] + words)
        }
        await #expect(try control("record", "start", part).status == 0)
        try await Task.sleep(for: .seconds(2))
        await #expect(try control("record", "pause").stdout == "recording \(part) → paused, by control\n")
        let twice = try await control("record", "pause")
        #expect(twice.status == 64 && twice.stderr.contains("paused already"), "\(twice)")
        try await Task.sleep(for: .seconds(3))
        await #expect(try control("record", "resume").stdout == "recording paused → \(part), by control\n")
        try await Task.sleep(for: .seconds(2))
        await #expect(try control("record", "stop").stdout == "recording \(part) → off, by control\n")
        #expect(try await run.interrupt().status == 0)

        #expect(try Tools.decodesCleanly(part))
        var times = try Tools.frameTimes(part)
        let frames = try Tools.decodeFrames(part, width: 640, height: 360, pixelFormat: "gray")
        try #require(frames.count == times.count && frames.count > 60, "\(frames.count) frames, \(times.count) times")
        var stamps = frames.map { frame in SceneStrip.read { x, y in Int(frame[y * 640 + x]) }?.milliseconds }
        // The recording's first picture is grabbed the moment it starts, off the frame-rate grid,
        // and can catch the scene halfway through drawing its stamp (a CI run's did): it is left
        // out. Every other picture's stamp reads.
        if stamps.first == .some(nil) { (stamps, times) = (Array(stamps.dropFirst()), Array(times.dropFirst())) }
        let drawn = stamps.compactMap { $0 }
        #expect(drawn.count == stamps.count, "every picture's stamp reads")
        // Where the scene's clock jumps by the pause, the file's goes on by a frame or two.
        let steps = zip(drawn, drawn.dropFirst()).map { Int($1) - Int($0) }
        let jumps = steps.indices.filter { steps[$0] > 2_000 }
        #expect(jumps.count == 1, "the pause, once: \(steps)")
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        if let pause = jumps.first {
            #expect(gaps[pause] > 0 && gaps[pause] < 0.15, "the file's times go on: \(gaps)")
        }
        // Elsewhere the file's times go on a frame or a few apart, or as the scene's clock does: a
        // loaded machine's scene that drew nothing for a few frames leaves the same gap in both. A
        // capture can land before the scene's late picture, whose stamp then shows in the next
        // frame (a CI run's file went on 0.7 s and 0.034 where the scene's went on 0.446 and
        // 0.257): the two clocks are compared over the two frames either side, on the gap's side
        // of the pause.
        let astray = gaps.indices.filter { index in
            guard !jumps.contains(index) && gaps[index] >= 0.15 else { return false }
            let side = jumps.first.map { index < $0 ? 0..<$0 : $0 + 1..<gaps.count } ?? gaps.indices
            let around = max(side.lowerBound, index - 2)..<min(side.upperBound, index + 3)
            let scene = around.reduce(0.0) { $0 + Double(steps[$1]) / 1000 }
            return abs(around.reduce(0.0) { $0 + gaps[$1] } - scene) > 0.1
        }
        #expect(gaps.allSatisfy { $0 > 0 } && astray.isEmpty,
                "file against scene at \(astray): \(gaps), \(steps)")
        let duration = try Tools.probe(part).duration ?? 0
        #expect(duration > 3 && duration < 5.5, "4 s recorded of 7: \(duration)")
        let samples = try Tools.statsRecords(stats, kind: "interval").compactMap { $0["recording"] as? [String: Any] }
        let paused = samples.map { $0["isPaused"] as? Bool }
        #expect(paused.contains(true) && paused.contains(false), "the stats said it, paused and going: \(samples)")
    }

    /// `?split=2s`: a new file at the first keyframe past each 2 s, each whole, starting on a
    /// keyframe at time zero, and together every picture a whole recording of the same run has,
    /// lasting as long: a moving screen, and a still one (a picture a second, each file's last
    /// lasting until the next file's first).
    @Test(arguments: [true, false]) func aSplitRecordingLosesNoPictureAtTheCuts(moving: Bool) async throws {
        let scene = moving ? try Tools.scene("video", on: server.display) : nil
        defer { _ = try? scene?.interrupt() }
        let whole = path("whole.mkv"), split = path("talk.mkv")
        let result = try await ProgramRun.podium(["stream", "--display", server.display, "--keyint", "1s",
                                                  "--duration", "7s", "--to", whole, "--to", split + "?split=2s"])
        #expect(result.status == 0, "\(result.stderr)")
        let pieces = (1...9).map { FileSplit.piece($0, of: split) }
            .filter { FileManager.default.fileExists(atPath: $0) }
        #expect(pieces.count == 3 || pieces.count == 4, "7 s in files of 2 s and a keyframe: \(pieces)")
        #expect(!FileManager.default.fileExists(atPath: split), "no file by the name without a number")
        var (frames, seconds) = (0, 0.0)
        for piece in pieces {
            #expect(try Tools.decodesCleanly(piece), "\(piece)")
            let probed = try Tools.probe(piece)
            frames += probed.frames
            seconds += probed.duration ?? 0
            let times = try Tools.frameTimes(piece)
            #expect((times.first ?? 1) < 0.05, "\(piece) starts at zero: \(times.prefix(3))")
            let first = try Tools.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                  "packet=flags", "-read_intervals", "%+#1", "-of", "csv=p=0", piece])
            #expect(first.stdout.hasPrefix("K"), "\(piece) starts on a keyframe: \(first.stdout)")
            // Cut at the first keyframe 2 s in or later; its last picture lasts until that keyframe.
            if piece != pieces.last { #expect(probed.duration ?? 0 >= 1.999, "\(piece): \(probed.duration ?? 0) s") }
        }
        let all = try Tools.probe(whole)
        #expect(frames == all.frames, "every picture of the run, in one file or the next")
        #expect(abs(seconds - (all.duration ?? 0)) < 0.005,
                "the files last \(seconds) s, the run's recording \(all.duration ?? 0) s")
    }

    @Test func podiumControlChangesARunningRecordingThatPlaysSmoothlyAcrossEveryChange() async throws {
        let scene = try Tools.scene("video", on: server.display)
        defer { _ = try? scene.interrupt() }
        let output = path("control.mkv"), stats = path("control.json")
        let run = ProgramRun.start(["stream", "--display", server.display, "-b", "4M", "--control",
                                    "--to", output, "--stats-json", stats])
        try await run.waitForStderr(containing: "capturing")
        let started = Date()
        let pid = ["--socket", run.controlSocket]
        func control(_ words: String...) async throws -> CommandResult {
            try await ProgramRun.podium(["control"] + pid + words)
        }

        try await Task.sleep(for: .seconds(2))
        let slower = try await control("set", "fps=10")
        #expect(slower.status == 0 && slower.stdout == "fps 30 → 10, by control\n", "\(slower)")
        // Bad requests: one line each, exit 64, and the run untouched.
        for (words, said) in [(["set", "fps=0"], "fps=0"), (["set", "fps=abc"], "fps=abc"),
                              (["set", "speed=2"], "unknown setting 'speed'"),
                              (["set", "quality=20"], "encodes at a bit rate"),
                              (["set", "fps=15", "bitrate=1k"], "bitrate=1k")] {
            let refused = try await ProgramRun.podium(["control"] + pid + words)
            #expect(refused.status == 64 && refused.stderr.hasPrefix("podium: ") && refused.stderr.contains(said),
                    "\(words): \(refused)")
            #expect(refused.stderr.split(separator: "\n").count == 1)
        }
        let part = path("part.mkv")
        let recording = try await control("record", "start", part)
        #expect(recording.stdout == "recording off → \(part), by control\n", "\(recording)")
        let recordedFrom = Date()
        let again = try await control("record", "start", output)
        #expect(again.status == 64 && again.stderr.contains("already"), "\(again)")
        try await Task.sleep(for: .seconds(2))
        let quieter = try await control("set", "bitrate=1M")
        #expect(quieter.stdout == "bitrate 4Mbit/s → 1Mbit/s, by control\n", "\(quieter)")
        await #expect(try control("pause").stdout == "picture live → frozen, by control\n")
        try await Task.sleep(for: .seconds(1))
        await #expect(try control("resume").stdout == "picture frozen → live, by control\n")
        await #expect(try control("keyframe").status == 0)
        await #expect(try control("record", "stop").stdout == "recording \(part) → off, by control\n")
        let recorded = Date().timeIntervalSince(recordedFrom)
        let stopped = try await control("record", "stop")
        #expect(stopped.status == 64 && stopped.stderr.contains("nothing is being recorded"), "\(stopped)")
        try await Task.sleep(for: .seconds(2))
        let status = try await control("--json", "status")
        let reply = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let state = reply?["status"] as? [String: Any]
        #expect(reply?["ok"] as? Bool == true && state?["fps"] as? Int == 10, "\(status)")
        #expect(state?["rate"] as? String == "1Mbit/s" && state?["picture"] as? String == "live")
        #expect(state?["pid"] as? Int == Int(getpid()))
        #expect((state?["sample"] as? [String: Any])?["targetFPS"] as? Int == 10, "the last second's figures")
        let human = try await control("status")
        #expect(human.stdout.hasPrefix("podium \(getpid()): fps 10, 1Mbit/s, picture live\n  "), "\(human.stdout)")
        let socket = run.controlSocket
        #expect(FileManager.default.fileExists(atPath: socket))
        let result = try await run.interrupt()
        let wall = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket is removed at the end")

        // The recording: whole, on time, at the rates asked for, and a quarter the bytes after
        // the bit rate went from 4M to 1M.
        #expect(try Tools.decodesCleanly(output))
        let times = try Tools.frameTimes(output)
        let duration = try Tools.probe(output).duration ?? 0
        #expect(abs(duration - wall) < 1.5, "\(duration) s recorded of \(wall) s")
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 > 0 }, "times only go forward")
        // On the 10 fps grid; a slot the scene had not drawn for yet (a busy machine) holds the
        // picture one slot longer, which a player shows as it should.
        let slow = zip(times, gaps).filter { $0.0 > 3 && $0.0 < 4 }.map(\.1)
        let onGrid = slow.allSatisfy { abs($0 - 0.1 * ($0 / 0.1).rounded()) < 0.002 && $0 > 0.05 }
        #expect(slow.count >= 7 && onGrid && slow.filter { $0 > 0.15 }.count <= 1, "10 fps: \(slow)")
        // Windows read off the change records, not guessed: each `podium control` takes its own
        // time on a busy machine. Before: at 10 fps and 4M; after: past the keyframe asked for.
        let changes = try Tools.statsRecords(stats, kind: "change")
        let when = { (setting: String) in changes.first { $0["setting"] as? String == setting }?["elapsed"] as? Double }
        let fps = try #require(when("fps")), rate = try #require(when("bitrate")), key = try #require(when("keyframe"))
        let packets = try packets(output)
        let before = packets.bitsPerSecond(in: fps + 0.5..<rate), after = packets.bitsPerSecond(in: key + 0.3..<key + 2)
        #expect(after < before * 0.5, "the bit rate fell: \(before / 1e6) → \(after / 1e6) Mbit/s")
        // The recording started and stopped while the run went on: whole, from its first frame.
        #expect(try Tools.decodesCleanly(part))
        let partLength = try Tools.probe(part).duration ?? 0
        #expect(abs(partLength - recorded) < 1.2, "\(partLength) s recorded of \(recorded) s")
        #expect(try Tools.frameTimes(part).first == 0, "it starts at its own beginning")
        #expect(changes.map { $0["setting"] as? String ?? "" }
                == ["fps", "recording", "bitrate", "picture", "picture", "keyframe", "recording"])
        #expect(changes.allSatisfy { $0["by"] as? String == "control" })
    }

    /// The presenter's keys as `podium control` commands: blank white shows white in the
    /// recording, blank off the screen again; highlight and zoom are set and said; a value the
    /// command does not take, or a layout without two sources, is refused and changes nothing.
    @Test func everyPresentersKeyIsAControlCommand() async throws {
        try Painter(display: server.display).draw(TestPattern(width: 640, height: 360, seed: 3))
        let output = path("presenter.mkv")
        let run = ProgramRun.start(["stream", "--display", server.display, "--control", "-t", "6s",
                                    "--to", output])
        try await run.waitForStderr(containing: "capturing")
        func control(_ words: String...) async throws -> CommandResult {
            try await ProgramRun.podium(["control", "--socket", run.controlSocket] + words)
        }
        try await Task.sleep(for: .seconds(1.5))
        await #expect(try control("blank", "white").stdout == "screen shown → white, by control\n")
        try await Task.sleep(for: .seconds(1.5))
        await #expect(try control("blank", "off").stdout == "screen white → shown, by control\n")
        await #expect(try control("highlight", "on").stdout.contains("highlight off → on, by control"))
        await #expect(try control("highlight", "on").stdout == "nothing to change\n")
        await #expect(try control("zoom", "2").stdout.contains("→ 2×, by control"))
        // A key as the desktop's own bindings send it (sway's bindsym): what the window's key does.
        await #expect(try control("key", "z").stdout.contains("2× → 4×, by control"))
        await #expect(try control("key", "-").stdout == "fps 30 → 24, by control\n")
        let window = try await control("key", "f")
        #expect(window.status == 64 && window.stderr.contains("key 'f': not one of the presenter's keys"), "\(window)")
        let layout = try await control("layout")
        #expect(layout.status == 64 && layout.stderr.contains("layout: this run has one source"), "\(layout)")
        let colour = try await control("blank", "pink")
        #expect(colour.status == 64 && colour.stderr.contains("blank 'pink': expected one of black, white, off"))
        let result = try await run.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")

        let (levels, white) = try Tools.greyLevels(output) { $0 > 235 }
        let span = try #require(white, "no white frame: \(levels)")
        #expect(abs(span.upperBound - span.lowerBound - 1.5) < 0.6, "white for as long as it was blank: \(levels)")
        #expect(levels.contains { $0.time >= span.upperBound && $0.mean < 220 }, "the screen again after: \(levels)")
    }
}

extension [(time: Double, size: Int, isKeyframe: Bool)] {
    /// The bits a second of the packets timed in `range`.
    func bitsPerSecond(in range: Range<Double>) -> Double {
        let bytes = filter { range.contains($0.time) }.reduce(0) { $0 + $1.size }
        return Double(bytes * 8) / (range.upperBound - range.lowerBound)
    }
}
