import Foundation
import PodiumCore
import PodiumTestSupport
import Testing

/// Changing a run as it goes, where only a process shows it: keys in a real terminal (tmux) and
/// every ending putting it back, keys off for a pipe, a recording named in the run's own folder,
/// and control sockets found by process id, refused to another user. `podium control` on a run:
/// PodiumCLIRunTests' TuneLiveTests.
@Suite(.serialized) struct TuneLiveTests {
    let server: XvfbServer
    let folder: URL

    init() throws {
        server = try XvfbServer(width: 640, height: 360)
        folder = try Tools.temporaryFolder()
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

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
            #expect(try Tools.decodesCleanly(output), "\(ending)")
            guard ending == "q" else { continue }
            let screen = terminal.screen
            for line in ["podium: fps 30 → 24, by key", "podium: fps 24 → 20, by key",
                         "podium: bitrate 2Mbit/s → 1.6Mbit/s, by key", "podium: keyframe requested, by key",
                         "podium: quit from the terminal"] {
                #expect(screen.contains(line), "\(line)\n\(screen)")
            }
            let changes = try Tools.statsRecords(stats, kind: "change")
            #expect(changes.map { $0["setting"] as? String ?? "" } == ["fps", "fps", "bitrate", "keyframe", "fps"])
            #expect(changes.allSatisfy { $0["by"] as? String == "key" })
            let intervals = try Tools.statsRecords(stats, kind: "interval").map { $0["targetFPS"] as? Int ?? 0 }
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
        #expect(try Tools.decodesCleanly(path(file)))
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
