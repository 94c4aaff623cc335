import Foundation
import PodiumTestSupport
import Testing

/// Picture and sound in step, measured with the clapper and `podium av-sync` against the issue's
/// targets (a median within 10 ms, none beyond 25 ms), at 120 fps. The clapper draws each flash at
/// its beep's instant; a grabbed picture shows it up to one frame interval later, which at 120 fps
/// spreads the offsets by ±4 ms: what is left is the sound's timing, which is Podium's to get right.
/// (doc/sound.md has 30 and 60 fps figures.)
/// Alone (`Scripts/test` runs this suite after the others): it judges real-time timing, which the
/// other suites' load on two cores would blur.
@Suite(.serialized) struct AVSyncTests {
    let desk: PrivateDesk

    init() throws { desk = try PrivateDesk() }

    /// The clapper flashes and beeps once a second; `podium av-sync` finds each flash and its beep
    /// in every container and after HLS (MPEG-TS and fMP4 segments): straight from PipeWire,
    /// within 10 ms of each other (median), 25 ms at worst. Through libpulse the sound follows the
    /// latency PipeWire's PulseAudio interface reports for a monitor, which is 10 to 20 ms more
    /// than the sound's age (medians of -13 to -21 ms here): 30 ms and 50 ms there. Every
    /// container of one run within 2 ms of the others (each states the encoder's priming its own
    /// way, or has it taken off its times).
    @Test(arguments: [false, true]) func theClappersFlashesAndBeepsAreFoundAndPaired(native: Bool) throws {
        let sound = try SoundServer()
        let recorded = native ? sound.pipeWireEnvironment : sound.environment
        let clapper = try startClapper(sound)
        defer { _ = try? clapper.interrupt() }
        for folder in ["hls", "fmp4"] {
            try FileManager.default.createDirectory(atPath: desk.path(folder), withIntermediateDirectories: true)
        }
        let outputs = ["clapper.mkv", "clapper.mp4", "clapper.ts", "clapper.flv", "hls/clapper.m3u8",
                       "fmp4/clapper.m3u8"].map(desk.path)
        let result = try Tools.podium(["stream", "--audio", "--fps", "120", "-t", "6s"]
                                      + outputs.flatMap { ["--to", $0.hasPrefix(desk.path("fmp4"))
                                                              ? $0 + "?segment-type=fmp4" : $0] },
                                      display: desk.display.display, environment: recorded)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains(native ? "on PipeWire;" : "on PulseAudio"), "\(result.stderr)")
        var medians: [Double] = []
        for output in outputs {
            let measured = try Tools.podium(["av-sync", output, "--json"])
            #expect(measured.status == 0, "\(measured.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(measured.stdout.utf8))
                                      as? [String: Any])
            let offsets = try #require(report["offsets"] as? [Double])
            // A flash every second of the six, the first perhaps before the recording began.
            #expect((5...6).contains(offsets.count), "\(output): \(report)")
            let median = try #require(report["medianMilliseconds"] as? Double)
            #expect(abs(median) <= (native ? 10 : 30), "\(output): \(offsets)")
            #expect(offsets.allSatisfy { abs($0) <= (native ? 25 : 50) }, "\(output): \(offsets)")
            // HLS's playlists keep the last segments only: the files hold the whole run.
            if !output.hasSuffix(".m3u8") { medians.append(median) }
        }
        #expect((medians.max() ?? 0) - (medians.min() ?? 0) <= 2, "the containers' medians: \(medians)")
    }

    /// Pushed over RTMP to nginx-rtmp, the sound arrives as AAC beside the picture, and read back
    /// from the server live, every flash still has its beep beside it, within the targets.
    @Test func theClapperThroughNginxRTMP() throws {
        let sound = try SoundServer()
        let nginx = try MediaServer()
        let clapper = try startClapper(sound)
        defer { _ = try? clapper.interrupt() }
        // At 120 fps, as above: a grabbed picture's own timing then spreads the offset by ±4 ms.
        let push = try Tools.start(Tools.podium.path, ["stream", "--audio", "--fps", "120", "-t", "9s",
                                                       "--keyint", "1s", "--quiet", "--to", nginx.publishURL],
                                   environment: recording(sound))
        Thread.sleep(forTimeInterval: 2)
        let measured = try Tools.podium(["av-sync", nginx.publishURL, "--duration", "5s", "--json"], timeout: 30)
        #expect(measured.status == 0, "\(measured.stderr)")
        let pushed = try push.wait(timeout: 30)
        #expect(pushed.status == 0, "\(pushed.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(measured.stdout.utf8)) as? [String: Any])
        let offsets = try #require(report["offsets"] as? [Double])
        #expect((4...6).contains(offsets.count), "\(report)")
        #expect(abs(try #require(report["medianMilliseconds"] as? Double)) <= 10, "\(offsets)")
        #expect(offsets.allSatisfy { abs($0) <= 25 }, "\(offsets)")
    }

    /// The graph's quantum forced from 5 to 43 ms and back mid-run (as a program asking for a
    /// longer one does): read straight from PipeWire, the offsets hold. Before the sound and the
    /// clapper were handled in the graph's cycle and counted the cycle a played block waits, the
    /// long quantum moved every beep 75 ms late, and the way back lost 37 ms of sound that the
    /// resampler took 37 s to slide over.
    @Test func aQuantumChangedMidRunMovesNoOffset() throws {
        let sound = try SoundServer()
        let clapper = try startClapper(sound)
        defer { _ = try? clapper.interrupt() }
        let output = desk.path("quantum.mkv")
        let run = try Tools.start(Tools.podium.path, ["stream", "--audio", "--fps", "120", "-t", "12s", "--quiet",
                                                      "--to", output],
                                  environment: recording(sound))
        for (wait, quantum) in [(4.0, 2048), (4.0, 0)] {
            Thread.sleep(forTimeInterval: wait)
            let forced = try Tools.start("pw-metadata", ["-n", "settings", "0", "clock.force-quantum", "\(quantum)"],
                                         environment: sound.pipeWireEnvironment).wait()
            #expect(forced.status == 0, "\(forced.stderr)")
        }
        let recorded = try run.wait(timeout: 30)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let measured = try Tools.podium(["av-sync", output, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(measured.stdout.utf8)) as? [String: Any])
        let offsets = try #require(report["offsets"] as? [Double])
        let median = try #require(report["medianMilliseconds"] as? Double)
        #expect(offsets.count >= 10, "\(report)")
        #expect(abs(median) <= 10, "\(offsets)")
        // Within a grabbed picture's own spread (±4 ms at 120 fps) and a little of the median; a
        // beep that plays across the change back may be moved (the graph hands the player's
        // last long block on in short cycles): one flash at most.
        #expect(offsets.count { abs($0 - median) > 12 } <= 1, "\(offsets)")
    }

    /// What a run recording `desk` and `sound` straight from PipeWire needs.
    private func recording(_ sound: SoundServer) -> [String: String] {
        sound.pipeWireEnvironment.merging(["DISPLAY": desk.display.display]) { $1 }
    }

    /// The clapper at 120 fps, its beeps played straight into PipeWire: placed by the graph's own
    /// time, where through PipeWire's PulseAudio interface they wander by tens of milliseconds
    /// when the quantum changes, or when the server raises a stream's latency after an underrun.
    private func startClapper(_ sound: SoundServer) throws -> RunningCommand {
        try Tools.start(Tools.podium.path, ["scene", "--display", desk.display.display, "--kind", "clapper",
                                            "--fps", "120", "--quiet"], environment: sound.pipeWireEnvironment)
    }


}
