import Foundation
import PodiumTestSupport
import Testing

/// `podium extend` as a process: a killed run's monitor, taken away by the next on Xorg and by
/// GNOME itself; GNOME's monitors (its session's bus and Wayland socket are the process's
/// environment). The rest of `extend` runs in the tests' process (PodiumCLIRunTests).
@Suite(.serialized) struct ExtendTests {
    let folder: URL

    init() throws { folder = try Tools.temporaryFolder() }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    @Test func aKilledRunsMonitorIsTakenAwayByClean() throws {
        let server = try XorgServer(width: 800, height: 600)
        let before = try server.monitors()
        let run = try Tools.start(Tools.podium.path, ["extend", "720p", "--below", "DUMMY0", "--display",
                                                      server.display, "--to", path("killed.mkv")])
        try run.waitForStderr(containing: "capturing")
        #expect(try server.monitors().contains { $0.hasPrefix("+DUMMY1 1280/") && $0.contains("+0+600 ") })
        run.signal(SIGKILL)
        _ = try? run.wait(timeout: 10)
        #expect(try server.monitors().count == 2, "a killed run leaves its monitor")
        let cleaned = try Tools.podium(["extend", "--clean", "--display", server.display])
        #expect(cleaned.status == 0, "\(cleaned.stderr)")
        #expect(cleaned.stderr.contains("took away what killed runs left: DUMMY1"), "\(cleaned.stderr)")
        #expect(try server.monitors() == before)
        #expect(try server.screenSize() == "800x600")
        let again = try Tools.podium(["extend", "--clean", "--display", server.display])
        #expect(again.stderr.contains("nothing left behind by earlier runs"), "\(again.stderr)")
    }

    /// On GNOME (a headless Mutter): its virtual monitor, laid left of the one there; a click on
    /// the viewer's page takes the pointer onto it, a window opened then shows there, and takes
    /// the keys typed on the page. The layout is as it was once the run ends.
    @Test func aGnomeMonitorTakesAWindowAndTheViewersKeys() throws {
        let gnome = try MutterServer(width: 1280, height: 720)
        let before = try gnome.monitors()
        let refused = try Tools.start(Tools.podium.path, ["extend", "640x480", "--below", "Nope", "--to",
                                                          path("refused.mkv")], environment: gnome.environment)
            .wait(timeout: 30)
        #expect(refused.status == 64 && refused.stderr.contains("--below 'Nope': no such monitor"),
                "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path("refused.mkv")))
        #expect(try gnome.monitors() == before)

        let (port, recording, typed) = (Tools.freePort(), path("gnome.mkv"), path("typed"))
        let run = try Tools.start(Tools.podium.path, ["extend", "640x480", "--left-of", "Meta-0", "--allow-input",
                                                      "--to", "http://127.0.0.1:\(port)", "--to", recording,
                                                      "-t", "60s"], environment: gnome.environment)
        defer { _ = try? run.interrupt() }
        try run.waitForStderr(containing: "keep its link to yourself")
        #expect(run.stderrSoFar.contains("a new monitor, Meta-1: 640x480 at 0,0"), "\(run.stderrSoFar)")
        #expect(try gnome.monitors() == ["Meta-0 1280x720+640+0", "Meta-1 640x480+0+0"])
        let link = try #require(run.stderrSoFar.split(whereSeparator: \.isWhitespace)
            .first { $0.contains("&input=") }.map(String.init))
        let browse = { (keys: [String], sent: Int) throws in
            let browsed = try Tools.run(Tools.repository.appendingPathComponent("Scripts/browse").path,
                                        [link, "--size", "640x480", "--timeout", "30",
                                         "--until", "window.podium && window.podium.painted >= 1",
                                         "--value", "window.podium.painted", "--click", "body"] + keys
                                            + ["--then", "window.podiumInput.sent >= \(sent)"], timeout: 60)
            #expect(browsed.status == 0, "\(browsed.stdout) \(browsed.stderr)")
        }
        try browse([], 2)
        let window = try gnome.openWindow("Typed", colour: "2266cc", command: "cat > \(typed)")
        defer { _ = try? window.interrupt() }
        Thread.sleep(forTimeInterval: 2)
        try browse(["--type", "aB\n"], 10)
        Thread.sleep(forTimeInterval: 0.5)
        let result = try run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("took the monitor Meta-1 away"), "\(result.stderr)")
        #expect(try gnome.monitors() == before)
        #expect((try? String(contentsOfFile: typed, encoding: .utf8)) == "aB\n", "the keys reached the window")
        let last = try #require(try Tools.rgbFrames(recording, size: (width: 320, height: 240)).last)
        #expect(RGB.near(RGB.pixel(last.pixels, 40, 40, width: 320), (0x22, 0x66, 0xCC), within: 11),
                "the window on the new monitor")
    }

    /// GNOME takes its monitor (a HiDPI one) away when the run that made it is killed (its session
    /// leaves the bus): nothing for the next run to clean. When GNOME itself goes, the run ends (69) with its
    /// recording whole.
    @Test func aGnomeMonitorGoesWithAKilledRunAndARunEndsWithGnome() throws {
        let gnome = try MutterServer(width: 1280, height: 720)
        let before = try gnome.monitors()
        // A tablet's HiDPI screen: its 2048x1536 pixels take 1024x768 of the layout.
        let killed = try Tools.start(Tools.podium.path, ["extend", "ipad", "--monitor-scale", "2", "--to",
                                                         path("killed.mkv")], environment: gnome.environment)
        try killed.waitForStderr(containing: "capturing")
        #expect(try gnome.monitors() == before + ["Meta-1 2048x1536+1280+0 scale 2.0"])
        // A second run's monitor goes past it: Mutter's physical layout counts its every pixel.
        let beside = try Tools.start(Tools.podium.path, ["extend", "720p", "--to", path("beside.mkv"), "-t", "1s"],
                                     environment: gnome.environment).wait(timeout: 30)
        #expect(beside.status == 0 && beside.stderr.contains("a new monitor, Meta-2: 1280x720 at 3328,0"),
                "\(beside.stderr)")
        killed.signal(SIGKILL)
        _ = try? killed.wait(timeout: 10)
        for _ in 0..<50 where try gnome.monitors() != before {
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(try gnome.monitors() == before, "the killed run's monitor is gone")

        let recording = path("ended.mkv")
        let run = try Tools.start(Tools.podium.path, ["extend", "720p", "--to", recording],
                                  environment: gnome.environment)
        try run.waitForStderr(containing: "capturing")
        Thread.sleep(forTimeInterval: 1)
        gnome.stop()
        let result = try run.wait(timeout: 30)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("GNOME (Mutter) went away"), "\(result.stderr)")
        #expect(try Tools.probe(recording).width == 1280)
        #expect(try Tools.rgbFrames(recording, size: (width: 160, height: 90)).count >= 1)
    }
}
