import Foundation
import PodiumCore
import PodiumTestSupport
import Testing

/// Changing a run as it goes: keys in a real terminal (tmux), `podium control` on the control
/// socket, and what the recordings and `--stats-json` make of it.
@Suite(.serialized) struct TuneLiveTests {
    let server: XvfbServer
    let folder: URL

    init() throws {
        server = try XvfbServer(width: 640, height: 360)
        folder = try Tools.temporaryFolder()
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The `--stats-json` records of `kind` (`change`, `interval`).
    func records(_ path: String, kind: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["kind"] as? String == kind }
    }

    /// ffmpeg decodes all of `path` without a word (in the file's own time base: a variable rate
    /// above the one it guesses from the first frames would otherwise collide in its output's).
    func decodesCleanly(_ path: String) throws -> Bool {
        let result = try Tools.run("ffmpeg", ["-v", "error", "-i", path, "-enc_time_base", "-1", "-f", "null", "-"])
        return result.status == 0 && result.stderr.isEmpty
    }

    @Test func keysInATerminalChangeTheRunAndEveryEndingPutsTheTerminalBack() throws {
        let scene = try Tools.scene("video", on: server.display)
        defer { _ = try? scene.interrupt() }
        for ending in ["q", "C-c", "SIGTERM", "SIGHUP"] {
            let output = path("keys-\(ending).mkv"), stats = path("keys-\(ending).json")
            let terminal = try TerminalSession("\(Tools.podium.path) stream --display \(server.display) -b 2M "
                                               + "--to \(output) --stats-json \(stats)")
            try terminal.waitFor("capturing")
            let started = Date()
            if ending == "q" {
                for key in ["-", "-", "<", "k", "?"] { try terminal.send(key) }
                // A second or so at 20 fps, for the statistics to see it.
                Thread.sleep(forTimeInterval: 1.5)
                try terminal.waitFor("podium: keys: space pause, b w blank, h highlight, z zoom")
                try terminal.send("+")
                try terminal.waitFor("fps 20 → 24, by key")
            } else {
                Thread.sleep(forTimeInterval: 1.5)
            }
            switch ending {
            case "q": try terminal.send("q")
            case "C-c": try terminal.send("C-c", literally: false)
            default: kill(try terminal.pid(of: "podium"), ending == "SIGTERM" ? SIGTERM : SIGHUP)
            }
            let (status, mode) = try terminal.ending()
            let wall = Date().timeIntervalSince(started)
            #expect(status == 0, "\(ending): \(terminal.screen)")
            #expect(mode.contains(" icanon") && mode.contains(" echo ") && !mode.contains("-icanon"),
                    "\(ending) left the terminal as: \(mode)")
            #expect(try decodesCleanly(output), "\(ending)")
            guard ending == "q" else { continue }
            let screen = terminal.screen
            for line in ["podium: fps 30 → 24, by key", "podium: fps 24 → 20, by key",
                         "podium: bitrate 2Mbit/s → 1.6Mbit/s, by key", "podium: keyframe requested, by key",
                         "podium: quit from the terminal"] {
                #expect(screen.contains(line), "\(line)\n\(screen)")
            }
            let changes = try records(stats, kind: "change")
            #expect(changes.map { $0["setting"] as? String ?? "" } == ["fps", "fps", "bitrate", "keyframe", "fps"])
            #expect(changes.allSatisfy { $0["by"] as? String == "key" })
            let intervals = try records(stats, kind: "interval").map { $0["targetFPS"] as? Int ?? 0 }
            #expect(intervals.contains(20), "the samples follow the rate: \(intervals)")
            let duration = try Tools.probe(output).duration ?? 0
            #expect(abs(duration - wall) < 1.5, "the recording lasts as long as the run: \(duration) s of \(wall) s")
        }
    }

    @Test func keysAreOffWhenStdinIsNotATerminal() throws {
        let output = path("piped.mkv")
        let result = try Tools.run("sh", ["-c", "printf '+++q' | \(Tools.podium.path) stream --display "
                                          + "\(server.display) -t 2s --to \(output)"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("by key") && !result.stderr.contains("quit from"), "\(result.stderr)")
    }

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
    func anEncoderThatCannotRetuneHandsOverWithAKeyframe(codec: String) throws {
        let scene = try Tools.scene("video", on: server.display)
        defer { _ = try? scene.interrupt() }
        let output = path("handover-\(codec).mkv"), stats = path("handover-\(codec).json")
        let run = try Tools.start(Tools.podium.path, ["stream", "--display", server.display, "--codec", codec,
                                                      "-b", "2M", "--control", "--to", output, "--stats-json", stats])
        try run.waitForStderr(containing: "capturing")
        Thread.sleep(forTimeInterval: 3)
        let lower = try Tools.podium(["control", "--pid", "\(run.pid)", "set", "bitrate=250k"])
        #expect(lower.stdout == "bitrate 2Mbit/s → 250kbit/s, by control\n", "\(lower)")
        Thread.sleep(forTimeInterval: 3)
        let result = try run.interrupt()
        #expect(result.status == 0 && !result.stderr.contains("warning"), "\(result.stderr)")

        #expect(try decodesCleanly(output))
        let changed = try #require(try records(stats, kind: "change").first?["elapsed"] as? Double)
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
    @Test func aPausedRecordingIsOneFileWithThePauseCutOut() throws {
        let scene = try Tools.scene("video", on: server.display)
        defer { _ = try? scene.interrupt() }
        let stats = path("paused.json"), part = path("paused.mkv")
        let run = try Tools.start(Tools.podium.path, ["stream", "--display", server.display, "--control",
                                                      "--to", path("whole.mkv"), "--stats-json", stats])
        try run.waitForStderr(containing: "capturing")
        func control(_ words: String...) throws -> CommandResult {
            try Tools.podium(["control", "--pid", "\(run.pid)"] + words)
        }
        #expect(try control("record", "start", part).status == 0)
        Thread.sleep(forTimeInterval: 2)
        #expect(try control("record", "pause").stdout == "recording \(part) → paused, by control\n")
        let twice = try control("record", "pause")
        #expect(twice.status == 64 && twice.stderr.contains("paused already"), "\(twice)")
        Thread.sleep(forTimeInterval: 3)
        #expect(try control("record", "resume").stdout == "recording paused → \(part), by control\n")
        Thread.sleep(forTimeInterval: 2)
        #expect(try control("record", "stop").stdout == "recording \(part) → off, by control\n")
        #expect(try run.interrupt().status == 0)

        #expect(try decodesCleanly(part))
        let times = try Tools.frameTimes(part)
        let frames = try Tools.decodeFrames(part, width: 640, height: 360, pixelFormat: "gray")
        try #require(frames.count == times.count && frames.count > 60, "\(frames.count) frames, \(times.count) times")
        let drawn = frames.compactMap { frame in SceneStrip.read { x, y in Int(frame[y * 640 + x]) }?.milliseconds }
        #expect(drawn.count == frames.count, "every picture's stamp reads")
        // Where the scene's clock jumps by the pause, the file's goes on by a frame or two.
        let steps = zip(drawn, drawn.dropFirst()).map { Int($1) - Int($0) }
        let jumps = steps.indices.filter { steps[$0] > 2_000 }
        #expect(jumps.count == 1, "the pause, once: \(steps)")
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        if let pause = jumps.first {
            #expect(gaps[pause] > 0 && gaps[pause] < 0.15, "the file's times go on: \(gaps)")
        }
        // Elsewhere the file's times go on a frame or a few apart, or as the scene's clock does: a
        // loaded machine's scene that drew nothing for a few frames leaves the same gap in both.
        let astray = gaps.indices.filter { index in
            !jumps.contains(index) && gaps[index] >= 0.15 && abs(gaps[index] - Double(steps[index]) / 1000) > 0.1
        }
        #expect(gaps.allSatisfy { $0 > 0 } && astray.isEmpty,
                "file against scene at \(astray): \(gaps), \(steps)")
        let duration = try Tools.probe(part).duration ?? 0
        #expect(duration > 3 && duration < 5.5, "4 s recorded of 7: \(duration)")
        let samples = try records(stats, kind: "interval").compactMap { $0["recording"] as? [String: Any] }
        let paused = samples.map { $0["isPaused"] as? Bool }
        #expect(paused.contains(true) && paused.contains(false), "the stats said it, paused and going: \(samples)")
    }

    /// `?split=2s`: a new file at the first keyframe past each 2 s, each whole, starting on a
    /// keyframe at time zero, and together every picture a whole recording of the same run has,
    /// lasting as long: a moving screen, and a still one (a picture a second, each file's last
    /// lasting until the next file's first).
    @Test(arguments: [true, false]) func aSplitRecordingLosesNoPictureAtTheCuts(moving: Bool) throws {
        let scene = moving ? try Tools.scene("video", on: server.display) : nil
        defer { _ = try? scene?.interrupt() }
        let whole = path("whole.mkv"), split = path("talk.mkv")
        let result = try Tools.podium(["stream", "--display", server.display, "--keyint", "1s", "--duration", "7s",
                                       "--to", whole, "--to", split + "?split=2s"])
        #expect(result.status == 0, "\(result.stderr)")
        let pieces = (1...9).map { FileSplit.piece($0, of: split) }
            .filter { FileManager.default.fileExists(atPath: $0) }
        #expect(pieces.count == 3 || pieces.count == 4, "7 s in files of 2 s and a keyframe: \(pieces)")
        #expect(!FileManager.default.fileExists(atPath: split), "no file by the name without a number")
        var (frames, seconds) = (0, 0.0)
        for piece in pieces {
            #expect(try decodesCleanly(piece), "\(piece)")
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

    @Test func podiumControlChangesARunningRecordingThatPlaysSmoothlyAcrossEveryChange() throws {
        let scene = try Tools.scene("video", on: server.display)
        defer { _ = try? scene.interrupt() }
        let output = path("control.mkv"), stats = path("control.json")
        let run = try Tools.start(Tools.podium.path, ["stream", "--display", server.display, "-b", "4M", "--control",
                                                      "--to", output, "--stats-json", stats])
        try run.waitForStderr(containing: "capturing")
        let started = Date()
        let pid = ["--pid", "\(run.pid)"]
        func control(_ words: String...) throws -> CommandResult { try Tools.podium(["control"] + pid + words) }

        Thread.sleep(forTimeInterval: 2)
        let slower = try control("set", "fps=10")
        #expect(slower.status == 0 && slower.stdout == "fps 30 → 10, by control\n", "\(slower)")
        // Bad requests: one line each, exit 64, and the run untouched.
        for (words, said) in [(["set", "fps=0"], "fps=0"), (["set", "fps=abc"], "fps=abc"),
                              (["set", "speed=2"], "unknown setting 'speed'"),
                              (["set", "quality=20"], "encodes at a bit rate"),
                              (["set", "fps=15", "bitrate=1k"], "bitrate=1k")] {
            let refused = try Tools.podium(["control"] + pid + words)
            #expect(refused.status == 64 && refused.stderr.hasPrefix("podium: ") && refused.stderr.contains(said),
                    "\(words): \(refused)")
            #expect(refused.stderr.split(separator: "\n").count == 1)
        }
        let part = path("part.mkv")
        let recording = try control("record", "start", part)
        #expect(recording.stdout == "recording off → \(part), by control\n", "\(recording)")
        let recordedFrom = Date()
        let again = try control("record", "start", output)
        #expect(again.status == 64 && again.stderr.contains("already"), "\(again)")
        Thread.sleep(forTimeInterval: 2)
        let quieter = try control("set", "bitrate=1M")
        #expect(quieter.stdout == "bitrate 4Mbit/s → 1Mbit/s, by control\n", "\(quieter)")
        #expect(try control("pause").stdout == "picture live → frozen, by control\n")
        Thread.sleep(forTimeInterval: 1)
        #expect(try control("resume").stdout == "picture frozen → live, by control\n")
        #expect(try control("keyframe").status == 0)
        #expect(try control("record", "stop").stdout == "recording \(part) → off, by control\n")
        let recorded = Date().timeIntervalSince(recordedFrom)
        let stopped = try control("record", "stop")
        #expect(stopped.status == 64 && stopped.stderr.contains("nothing is being recorded"), "\(stopped)")
        Thread.sleep(forTimeInterval: 2)
        let status = try control("--json", "status")
        let reply = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let state = reply?["status"] as? [String: Any]
        #expect(reply?["ok"] as? Bool == true && state?["fps"] as? Int == 10, "\(status)")
        #expect(state?["rate"] as? String == "1Mbit/s" && state?["picture"] as? String == "live")
        #expect(state?["pid"] as? Int == Int(run.pid))
        #expect((state?["sample"] as? [String: Any])?["targetFPS"] as? Int == 10, "the last second's figures")
        let human = try control("status")
        #expect(human.stdout.hasPrefix("podium \(run.pid): fps 10, 1Mbit/s, picture live\n  "), "\(human.stdout)")
        let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].map { $0 + "/podium" }
        let socket = "\(runtime ?? "/tmp/podium-\(getuid())")/\(run.pid).sock"
        #expect(FileManager.default.fileExists(atPath: socket))
        let result = try run.interrupt()
        let wall = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket is removed at the end")

        // The recording: whole, on time, at the rates asked for, and a quarter the bytes after
        // the bit rate went from 4M to 1M.
        #expect(try decodesCleanly(output))
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
        let changes = try records(stats, kind: "change")
        let when = { (setting: String) in changes.first { $0["setting"] as? String == setting }?["elapsed"] as? Double }
        let fps = try #require(when("fps")), rate = try #require(when("bitrate")), key = try #require(when("keyframe"))
        let packets = try packets(output)
        let before = packets.bitsPerSecond(in: fps + 0.5..<rate), after = packets.bitsPerSecond(in: key + 0.3..<key + 2)
        #expect(after < before * 0.5, "the bit rate fell: \(before / 1e6) → \(after / 1e6) Mbit/s")
        // The recording started and stopped while the run went on: whole, from its first frame.
        #expect(try decodesCleanly(part))
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
    @Test func everyPresentersKeyIsAControlCommand() throws {
        try Painter(display: server.display).draw(TestPattern(width: 640, height: 360, seed: 3))
        let output = path("presenter.mkv")
        let run = try Tools.start(Tools.podium.path, ["stream", "--display", server.display, "--control", "-t", "6s",
                                                      "--to", output])
        try run.waitForStderr(containing: "capturing")
        func control(_ words: String...) throws -> CommandResult {
            try Tools.podium(["control", "--pid", "\(run.pid)"] + words)
        }
        Thread.sleep(forTimeInterval: 1.5)
        #expect(try control("blank", "white").stdout == "screen shown → white, by control\n")
        Thread.sleep(forTimeInterval: 1.5)
        #expect(try control("blank", "off").stdout == "screen white → shown, by control\n")
        #expect(try control("highlight", "on").stdout.contains("highlight off → on, by control"))
        #expect(try control("highlight", "on").stdout == "nothing to change\n")
        #expect(try control("zoom", "2").stdout.contains("→ 2×, by control"))
        // A key as the desktop's own bindings send it (sway's bindsym): what the window's key does.
        #expect(try control("key", "z").stdout.contains("2× → 4×, by control"))
        #expect(try control("key", "-").stdout == "fps 30 → 24, by control\n")
        let window = try control("key", "f")
        #expect(window.status == 64 && window.stderr.contains("key 'f': not one of the presenter's keys"), "\(window)")
        let layout = try control("layout")
        #expect(layout.status == 64 && layout.stderr.contains("layout: this run has one source"), "\(layout)")
        let colour = try control("blank", "pink")
        #expect(colour.status == 64 && colour.stderr.contains("blank 'pink': expected one of black, white, off"))
        let result = try run.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")

        let (levels, white) = try Tools.greyLevels(output) { $0 > 235 }
        let span = try #require(white, "no white frame: \(levels)")
        #expect(abs(span.upperBound - span.lowerBound - 1.5) < 0.6, "white for as long as it was blank: \(levels)")
        #expect(levels.contains { $0.time >= span.upperBound && $0.mean < 220 }, "the screen again after: \(levels)")
    }

    /// `r` (Ctrl+Alt+R, `podium control key r`) starts a recording named by the time in the
    /// run's folder, and again stops it: a file that plays, as long as the recording lasted.
    @Test func theRecordKeyStartsAndStopsARecordingNamedByTheTime() throws {
        let scene = try Tools.scene("video", on: server.display)
        defer { _ = try? scene.interrupt() }
        let run = try Tools.start("sh", ["-c", "cd '\(folder.path)' && exec '\(Tools.podium.path)' stream --display "
                                         + "\(server.display) --control -t 7s --to main.mkv"])
        try run.waitForStderr(containing: "capturing")
        let pid = run.pid  // sh became podium (exec)
        Thread.sleep(forTimeInterval: 1)
        let began = Date()
        let started = try Tools.podium(["control", "--pid", "\(pid)", "key", "r"])
        #expect(started.status == 0 && started.stdout.hasPrefix("recording off → \(folder.path)/podium-"),
                "\(started)")
        Thread.sleep(forTimeInterval: 3)
        let stopped = try Tools.podium(["control", "--pid", "\(pid)", "key", "r"])
        // It started after `began` and stopped before the second answer: at most that long.
        let longest = Date().timeIntervalSince(began)
        #expect(stopped.stdout.hasSuffix(".mkv → off, by control\n"), "\(stopped)")
        #expect(try run.wait(timeout: 30).status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("podium-") }
        let file = try #require(files.first, "\(files)")
        #expect(files.count == 1 && file.count == "podium-2026-11-28-071512.mkv".count, "\(files)")
        #expect(try decodesCleanly(path(file)))
        let duration = try Tools.probe(path(file)).duration ?? 0
        #expect(duration > 2.9 && duration < longest + 0.1,
                "as long as it was recording (\(longest) s at most): \(duration) s")
    }

    @Test func aSocketThatIsNotPodiumsAndAnotherUserAreRefused() throws {
        let socket = path("other.sock")
        let other = try Tools.start("python3", ["-c", """
            import socket
            s = socket.socket(socket.AF_UNIX); s.bind('\(socket)'); s.listen(1)
            c, _ = s.accept(); c.recv(100); c.sendall(b'hello there\\n'); c.close()
            """])
        defer { _ = try? other.wait(timeout: 5) }
        for _ in 0..<50 where !FileManager.default.fileExists(atPath: socket) { Thread.sleep(forTimeInterval: 0.05) }
        let refused = try Tools.podium(["control", "--socket", socket, "status"])
        #expect(refused.status == 69 && refused.stderr.contains("is not a Podium control socket"), "\(refused)")
        let nobody = try Tools.podium(["control", "--socket", path("missing.sock"), "status"])
        #expect(nobody.status == 69 && nobody.stderr.contains("no Podium listens on"), "\(nobody)")

        // Another user cannot reach this user's socket (the folder is this user's alone).
        let run = try Tools.start(Tools.podium.path, ["stream", "--display", server.display, "--control",
                                                      "--to", path("mine.mkv")])
        try run.waitForStderr(containing: "capturing")
        let stranger = try Tools.run("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                 Tools.podium.path, "control", "--pid", "\(run.pid)", "status"])
        #expect(stranger.status == 69, "\(stranger)")
        #expect(try Tools.podium(["control", "--pid", "\(run.pid)", "status"]).status == 0)
        _ = try run.interrupt()
    }
}

extension [(time: Double, size: Int, isKeyframe: Bool)] {
    /// The bits a second of the packets timed in `range`.
    func bitsPerSecond(in range: Range<Double>) -> Double {
        let bytes = filter { range.contains($0.time) }.reduce(0) { $0 + $1.size }
        return Double(bytes * 8) / (range.upperBound - range.lowerBound)
    }
}
