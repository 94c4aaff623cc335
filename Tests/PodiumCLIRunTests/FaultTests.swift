import Foundation
import PodiumTestSupport
import Testing

/// What a long talk meets and a run survives by itself, saying so once each way: the captured
/// monitor unplugged and plugged back, a microphone that goes away.
@Suite(.serialized, .programThreads) struct FaultTests {
    let folder: URL

    init() throws {
        folder = try Tools.temporaryFolder()
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Xorg (the dummy driver, whose screen changes as a real one's does): the monitor turned off
    /// and on again with xrandr. Capture waits, then goes on by itself; the recording keeps its
    /// size and its time line (the last picture held meanwhile), and decodes.
    @Test func theCapturedMonitorUnpluggedAndPluggedBackIsFollowed() async throws {
        let xorg = try XorgServer(width: 1024, height: 768)
        let scene = try Tools.scene("video", on: xorg.display, fps: 10)
        defer { _ = try? scene.interrupt() }
        let recording = path("unplugged.mkv")
        let run = ProgramRun.start(["stream", "--display", xorg.display, "--monitor", "DUMMY0",
                                    "--fps", "10", "-t", "9s", "--to", recording])
        try await run.waitForStderr(containing: "capturing")
        let started = Date()
        try await Task.sleep(for: .seconds(2))
        let off = try Tools.run("xrandr", ["-display", xorg.display, "--output", "DUMMY0", "--off"])
        #expect(off.status == 0, "\(off.stderr)")
        try await run.waitForStderr(containing: "monitor DUMMY0 is gone; waiting for it to come back", timeout: 2)
        try await Task.sleep(for: .seconds(2))
        let on = try Tools.run("xrandr", ["-display", xorg.display, "--output", "DUMMY0", "--mode", "1024x768"])
        let plugged = Date().timeIntervalSince(started)
        #expect(on.status == 0, "\(on.stderr)")
        try await run.waitForStderr(containing: "capturing DUMMY0 again", timeout: 2)
        let result = try await run.wait(timeout: 20)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "is gone").count == 2, "said once: \(result.stderr)")
        #expect(result.stderr.components(separatedBy: "again").count == 2, "said once: \(result.stderr)")

        let decoded = try Tools.run("ffmpeg", ["-v", "error", "-i", recording, "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded.stderr)")
        let probed = try Tools.probe(recording)
        #expect(probed.width == 1024 && probed.height == 768)
        #expect(abs((probed.duration ?? 0) - 9) < 0.5, "the run's time line: \(probed.duration ?? 0) s")
        let times = try Tools.frameTimes(recording)
        let gaps = zip(times, times.dropFirst()).map { ($0, $1 - $0) }
        let longest = gaps.max { $0.1 < $1.1 }
        // Two seconds unplugged: one gap, the picture again within 2 s of the monitor, then 10 a second.
        let resumed = longest.map { $0.0 + $0.1 } ?? 0
        #expect((longest?.1 ?? 0) > 1.5 && resumed > plugged - 0.5 && resumed < plugged + 2,
                "plugged back at \(plugged) s; the gap: \(String(describing: longest))")
        let after = times.filter { $0 > plugged + 0.5 }
        #expect(after.count > Int((8.5 - plugged) * 10 * 0.8), "pictures again after \(plugged) s: \(after)")
    }

    /// A microphone unplugged and plugged back (a virtual source the sound server drops, then makes
    /// again): silence in its place, not another source's sound, said once each way; the recording's
    /// sound lasts as long as the run. Through libpulse, and straight from PipeWire.
    @Test(arguments: [false, true])
    func aMicrophoneThatGoesAwayLeavesSilenceAndIsSaid(native: Bool) async throws {
        let xvfb = try XvfbServer(width: 320, height: 240)
        let sound = try SoundServer(tone: 1_000)
        defer { sound.stop() }
        func pactl(_ arguments: String...) throws -> CommandResult {
            try Tools.start("pactl", arguments, environment: sound.environment).wait(timeout: 10)
        }
        // The tone plays into the new sink (the newest is the default), so its monitor hears it.
        let loaded = try pactl("load-module", "module-null-sink", "sink_name=usbmic")
        #expect(loaded.status == 0, "\(loaded)")
        let recording = path("mic-\(native).mkv")
        let environment = native ? sound.pipeWireEnvironment : sound.environment
        let run = ProgramRun.start(["stream", "--audio", "usbmic.monitor", "-t", "7s", "--to", recording],
                                   display: xvfb.display, environment: environment)
        try await run.waitForStderr(containing: "capturing")
        try await Task.sleep(for: .seconds(2))
        #expect(try pactl("unload-module", loaded.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).status == 0)
        try await run.waitForStderr(containing: "sound: usbmic.monitor went away; silence until it is back", timeout: 3)
        try await Task.sleep(for: .seconds(2))
        #expect(try pactl("load-module", "module-null-sink", "sink_name=usbmic").status == 0)
        let result = try await run.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "went away").count == 2, "said once: \(result.stderr)")
        #expect(result.stderr.components(separatedBy: " is back after ").count == 2, "\(result.stderr)")
        let samples = try Tools.decodeSound(recording)
        #expect(abs(Double(samples.count) / 48_000 - 7) < 0.1, "sound lasts as the run")
        let before = samples[24_000..<72_000], away = samples[144_000..<min(samples.count, 192_000)]
        #expect(Tools.tonePower(near: 1_000, in: before) > 1e-3, "the microphone's sound first")
        #expect(Tools.rms(away) < 1e-4, "silence while it is away, not another source: \(Tools.rms(away))")
    }
}
