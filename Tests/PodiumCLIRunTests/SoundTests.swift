import Foundation
import PodiumTestSupport
import Testing

/// `podium stream --audio` against a private PipeWire (`Scripts/sound-server`) whose default
/// output plays a 1 kHz tone, as a desktop playing sound would: what FFmpeg decodes from each
/// container is that tone, as long as the picture; and a sound server or source that is not
/// there ends the run before anything is written.
/// Serialized: each test records in real time, and two cores are shared with the servers.
@Suite(.serialized, .programThreads) struct SoundTests {
    let desk: PrivateDesk

    init() throws { desk = try PrivateDesk() }

    /// The monitor of the default output is recorded, encoded once (AAC, or Opus) and written
    /// beside the picture; it decodes to the tone that played, and lasts as long as the picture.
    @Test(arguments: [("tone.mkv", "aac"), ("tone.mp4", "aac"), ("tone.ts", "aac"), ("tone.flv", "aac"),
                      ("opus.mkv", "opus")])
    func theDesktopsToneComesBackInEveryContainer(name: String, codec: String) async throws {
        let sound = try SoundServer(tone: 1_000)
        let output = desk.path(name)
        let result = try await ProgramRun.podium(["stream", "--audio", "--audio-codec", codec, "-t", "3s",
                                                  "--to", output],
                                                 display: desk.display.display, environment: sound.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("sound from Monitor of Dummy Output (auto_null.monitor) on PulseAudio"),
                "\(result.stderr)")

        let streams = try Tools.run("ffprobe", ["-v", "error", "-show_entries",
                                                "stream=codec_type,codec_name,sample_rate,channels", "-of", "csv=p=0",
                                                output])
        #expect(streams.stdout.contains("\(codec),audio,48000,2"), "\(streams.stdout)")
        let samples = try Tools.decodeSound(output)
        let seconds = Double(samples.count) / 48_000
        let picture = try #require(try Tools.probe(output).duration)
        // The picture ends at 3 s; the sound within one or two packets of it (AAC's last frame
        // decodes whole).
        #expect(abs(seconds - 3) < 0.05, "sound lasts \(seconds) s")
        #expect(abs(picture - 3) < 0.1, "the file lasts \(picture) s")

        // After the first half second (the server's start-up), every half second is the tone.
        var tone = 0
        for start in stride(from: 24_000, to: samples.count - 24_000, by: 24_000) {
            let window = samples[start..<start + 24_000]
            let wanted = Tools.tonePower(near: 1_000, in: window)
            let other = max(Tools.tonePower(near: 700, in: window), Tools.tonePower(near: 1_500, in: window))
            if wanted > 1e-3 && wanted > 1_000 * other { tone += 1 }
        }
        #expect(tone >= 4, "\(tone) half seconds of 1 kHz tone in \(seconds) s")
    }

    /// Where PipeWire runs and no `PULSE_SERVER` names another server, the sound is read straight
    /// from it, on its graph's clock; `--audio app:NAME` takes one application's sound (here the
    /// player of the second output's 1 kHz tone, not the desktop's 440 Hz one). Through PulseAudio
    /// alone there is no such thing, and the run says so before anything is written.
    @Test func pipeWireIsReadStraightAndOneApplicationsSoundIsTaken() async throws {
        let sound = try SoundServer(tone: 440, secondTone: 1_000)
        let output = desk.path("application.mkv")
        let result = try await ProgramRun.podium(["stream", "--audio", "app:tone-1000", "-t", "2s", "--to", output],
                                                 display: desk.display.display, environment: sound.pipeWireEnvironment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("sound from the sound of tone-1000 (PipeWire stream "), "\(result.stderr)")
        let samples = try Tools.decodeSound(output)
        let heard = try #require(samples.count > 72_000 ? samples[24_000..<72_000] : nil, "\(samples.count) samples")
        #expect(Tools.tonePower(near: 1_000, in: heard) > 1_000 * Tools.tonePower(near: 440, in: heard),
                "the application's tone alone")

        let pulse = desk.path("pulse.mkv")
        let refused = try await ProgramRun.podium(["stream", "--audio", "app:tone-1000", "-t", "2s", "--to", pulse],
                                                  display: desk.display.display, environment: sound.environment)
        #expect(refused.status == 69 && refused.stderr.contains("it is recorded through PipeWire"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: pulse))
    }

    /// The sound server goes away mid-run and comes back: the picture and the recording go on,
    /// the live line says the sound is reconnecting, silence fills the gap, and the tone returns;
    /// the run's lines say once that it went and once that it came back.
    /// Through libpulse, and straight from PipeWire.
    @Test(arguments: [false, true])
    func theSoundServerGoingAwayLeavesSilenceAndTheSoundReturns(native: Bool) async throws {
        let sound = try SoundServer(tone: 1_000)
        let output = desk.path("gap.mkv")
        let environment = native ? sound.pipeWireEnvironment : sound.environment
        let podium = ProgramRun.start(["stream", "--audio", "-t", "9s", "--to", output],
                                      display: desk.display.display, environment: environment)
        try await podium.waitForStderr(containing: "audio -", timeout: 20)
        sound.stop()
        try await podium.waitForStderr(containing: "audio: reconnecting", timeout: 10)
        try await Task.sleep(for: .seconds(1.5))
        try sound.start()
        let result = try await podium.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        // Said once each way, in the run's lines.
        let said = { (text: String) in result.stderr.components(separatedBy: text).count - 1 }
        #expect(said("lost its sound server; silence until it is back") == 1, "\(result.stderr)")
        #expect(said(" is back after ") == 1, "\(result.stderr)")

        let samples = try Tools.decodeSound(output)
        let seconds = Double(samples.count) / 48_000
        #expect(abs(seconds - 9) < 0.07, "sound lasts \(seconds) s, as the run")
        let halves = stride(from: 0, to: samples.count - 24_000, by: 24_000).map { start in
            let window = samples[start..<start + 24_000]
            return Tools.tonePower(near: 1_000, in: window) > 1e-3
        }
        // Tone, then a stretch without it, then tone again to the end.
        let firstGap = try #require(halves.firstIndex(of: false), "a gap: \(halves)")
        let back = try #require(halves[firstGap...].firstIndex(of: true), "the tone came back: \(halves)")
        #expect(firstGap >= 2 && back - firstGap >= 2, "\(halves)")
        #expect(halves.suffix(2) == [true, true], "\(halves)")
    }

    /// Two sources mixed, the second 12 dB down: both tones are in the recording, at the levels
    /// asked for (they play at the same level); the stats name each source with its level.
    @Test func twoSourcesAreMixedAtTheLevelsAskedFor() async throws {
        let sound = try SoundServer(tone: 1_000, secondTone: 440)
        let output = desk.path("mixed.mkv")
        let stats = desk.path("mixed.json")
        let result = try await ProgramRun.podium(["stream", "--audio", "--audio", "second.monitor?gain=-12dB",
                                                  "-t", "3s", "--stats-json", stats, "--to", output],
                                                 display: desk.display.display, environment: sound.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.replacingOccurrences(of: "\npodium:  ", with: "")
                    .contains("(desk.monitor) and Monitor of Second-Output (second.monitor) at -12 dB on PulseAudio"),
                "the start names both sources, and the level of the second: \(result.stderr)")

        let samples = try Tools.decodeSound(output)
        #expect(abs(Double(samples.count) / 48_000 - 3) < 0.1)
        // The level of each 100 ms of the middle second and a half, and their median: a moment one
        // source's server fell behind (a loaded machine) is not a level.
        let levels = stride(from: 48_000, to: min(samples.count, 120_000) - 4_800, by: 4_800).map { start in
            let window = samples[start..<start + 4_800]
            let desktop = Tools.tonePower(near: 1_000, in: window)
            return (desktop, 10 * log10(Tools.tonePower(near: 440, in: window) / max(desktop, 1e-12)))
        }
        // The level where both play: on a loaded machine one CI run had the second source's last
        // 0.6 s arrive after the run's end (silence there, -inf), its level -12 dB until then.
        let both = levels.map(\.1).filter { $0 > -40 }.sorted()
        let decibels = both.isEmpty ? -.infinity : both[both.count / 2]
        #expect(levels.count >= 10 && levels.map(\.0).sorted()[levels.count / 2] > 1e-3,
                "the desktop's tone is there")
        #expect(both.count >= levels.count / 2, "the second source plays most of the time: \(levels.map(\.1))")
        #expect(abs(decibels + 12) < 2, "the second source is \(decibels) dB against the first: \(levels.map(\.1))")

        let lines = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n")
        let last = try #require(lines.last.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) }
                                as? [String: Any])
        let figures = try #require(last["sound"] as? [String: Any])
        let sources = try #require(figures["sources"] as? [[String: Any]])
        #expect(sources.compactMap { $0["name"] as? String } == ["desktop", "second.monitor?gain=-12dB"])
        #expect(figures["offsetMs"] is Double && figures["cpuCores"] is Double, "\(figures)")
    }

    /// One run to a TCP receiver, an SRT listener and an RTSP server (each FFmpeg or libsrt's own
    /// tool, writing what it got): each reception carries the tone beside the picture.
    @Test func tcpSRTAndRTSPCarryTheSound() async throws {
        let sound = try SoundServer(tone: 1_000)
        let (tcpPort, srtPort, rtspPort) = (Tools.freePort(), Tools.freePort(), Tools.freePort())
        let received = ["tcp.ts", "srt.ts", "rtsp.mkv"].map(desk.path)
        let tcp = try Tools.start("ffmpeg", ["-v", "error", "-i", "tcp://127.0.0.1:\(tcpPort)?listen", "-c", "copy",
                                             "-y", received[0]])
        let srt = try Tools.start("/bin/bash", ["-c", "exec srt-live-transmit -q -a no \"$1\" file://con > \"$2\"",
                                                "srt-receiver", "srt://127.0.0.1:\(srtPort)?mode=listener",
                                                received[1]])
        let rtsp = try Tools.start("ffmpeg", ["-v", "error", "-rtsp_flags", "listen",
                                              "-i", "rtsp://127.0.0.1:\(rtspPort)/live", "-c", "copy", "-y",
                                              received[2]])
        defer { [tcp, srt, rtsp].forEach { $0.signal(SIGKILL) } }
        // The servers take the first connection for the publisher: nothing may knock to see if they are up.
        try await Task.sleep(for: .seconds(1))
        let result = try await ProgramRun.podium(["stream", "--audio", "-t", "4s", "--keyint", "1s",
                                                  "--to", "tcp://127.0.0.1:\(tcpPort)",
                                                  "--to", "srt://127.0.0.1:\(srtPort)",
                                                  "--to", "rtsp://127.0.0.1:\(rtspPort)/live"],
                                                 display: desk.display.display, environment: sound.environment)
        #expect(result.status == 0, "\(result.stderr)")
        let heard = sound.state()
        for receiver in [tcp, srt, rtsp] { _ = try? receiver.wait(timeout: 10) }
        for path in received {
            let streams = try Tools.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_name",
                                                    "-of", "csv=p=0", path])
            #expect(streams.stdout.contains("h264,video") && streams.stdout.contains("aac,audio"),
                    "\(path): \(streams.stdout) \(streams.stderr)")
            let samples = try Tools.decodeSound(path)
            #expect(Double(samples.count) / 48_000 > 2, "\(path): \(samples.count) samples")
            let middle = samples[samples.count / 4..<samples.count * 3 / 4]
            #expect(Tools.typicalTonePower(near: 1_000, in: middle) > 1e-3
                    && abs(Tools.dominantFrequency(middle) - 1_000) <= 10,
                    "\(path): \(Tools.describeTone(near: 1_000, in: middle)); \(result.stderr); \(heard)")
        }
    }

    /// Headless Chromium plays an HLS folder with sound (natively: Chromium plays HLS itself), with
    /// MPEG-TS and with fMP4 segments: its decoder gets the sound beside the picture.
    @Test(arguments: ["mpegts", "fmp4"])
    func chromiumPlaysHLSWithItsSound(segments: String) async throws {
        let sound = try SoundServer(tone: 1_000)
        let folder = desk.folder.appendingPathComponent(segments)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("hls"),
                                                withIntermediateDirectories: true)
        let result = try await ProgramRun.podium(["stream", "--audio", "-t", "5s",
                                                  "--to", folder.appendingPathComponent("hls/live.m3u8").path
                                                  + "?segment-type=\(segments)"],
                                                 display: desk.display.display, environment: sound.environment)
        #expect(result.status == 0, "\(result.stderr)")
        try #"<video id="v" src="hls/live.m3u8" muted autoplay playsinline></video>"#
            .write(to: folder.appendingPathComponent("play.html"), atomically: true, encoding: .utf8)
        let (http, port) = try Tools.serve(folder)
        defer { _ = try? http.interrupt() }
        let video = "document.getElementById('v')"
        let played = try Tools.run(Tools.repository.appendingPathComponent("Scripts/browse").path, [
            "http://127.0.0.1:\(port)/play.html", "--timeout", "40",
            "--until", "\(video).currentTime >= 3 && \(video).webkitAudioDecodedByteCount > 0",
            "--value", "{time: \(video).currentTime, sound: \(video).webkitAudioDecodedByteCount, "
                + "picture: \(video).webkitVideoDecodedByteCount, error: \(video).error && \(video).error.message}",
        ], timeout: 60)
        #expect(played.status == 0, "Chromium played 3 s with sound: \(played.stdout) \(played.stderr)")
    }

    /// A recording without the clapper's sound has nothing to pair: said, with 69.
    @Test func avSyncSaysWhenThereIsNothingToMeasure() async throws {
        let output = desk.path("silent.mkv")
        let recorded = try await ProgramRun.podium(["stream", "-t", "1s", "--to", output],
                                                   display: desk.display.display)
        #expect(recorded.status == 0)
        let measured = try await ProgramRun.podium(["av-sync", output])
        #expect(measured.status == 64)
        #expect(measured.stderr == "podium: av-sync '\(output)': it has no sound\n", "\(measured.stderr)")
        let missing = try await ProgramRun.podium(["av-sync", desk.path("nothing.mkv")])
        #expect(missing.status == 64)
        #expect(missing.stderr.hasPrefix("podium: av-sync '\(desk.path("nothing.mkv"))': cannot read it"))
    }

    /// `podium sources` lists what the server has, the desktop's and the default input marked.
    @Test func sourcesListsWhatTheServerHas() async throws {
        let sound = try SoundServer()
        let text = try await ProgramRun.podium(["sources"], environment: sound.environment)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.hasPrefix("sound server: PulseAudio (on PipeWire"), "\(text.stdout)")
        #expect(text.stdout.contains("  auto_null.monitor  Monitor of Dummy Output  --audio desktop  --audio mic\n"),
                "\(text.stdout)")
        let json = try await ProgramRun.podium(["sources", "--json"], environment: sound.environment)
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let sources = try #require(listing["sources"] as? [[String: Any]])
        #expect(sources.count == 1)
        #expect(sources.first?["name"] as? String == "auto_null.monitor")
        #expect(sources.first?["monitorOf"] as? String == "auto_null")
        #expect(sources.first?["defaultFor"] as? [String] == ["desktop", "mic"])

        // With the PipeWire beside it reachable, the applications playing are listed for app:NAME.
        let playing = try SoundServer(tone: 440)
        let environment = playing.environment.merging(playing.pipeWireEnvironment) { $1 }
        let apps = try await ProgramRun.podium(["sources"], environment: environment)
        #expect(apps.stdout.contains("applications playing (--audio app:NAME):\n  tone-440\n"), "\(apps.stdout)")
        let appsJSON = try await ProgramRun.podium(["sources", "--json"], environment: environment)
        let appsListing = try JSONSerialization.jsonObject(with: Data(appsJSON.stdout.utf8)) as? [String: Any]
        #expect(appsListing?["applications"] as? [String] == ["tone-440"], "\(appsJSON.stdout)")
    }

    /// No sound server: one line naming --audio, 69, and no file.
    @Test func noSoundServerEndsTheRunBeforeAnythingIsWritten() async throws {
        let output = desk.path("nothing.mkv")
        let nowhere = ["PULSE_SERVER": "unix:\(desk.folder.path)/no-server/native"]
        let result = try await ProgramRun.podium(["stream", "--audio", "-t", "2s", "--to", output],
                                                 display: desk.display.display, environment: nowhere)
        #expect(result.status == 69)
        #expect(result.stderr == "podium: --audio desktop: no sound server (PipeWire or PulseAudio) answers: "
                + "Connection refused\n", "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A source that is not on the server: named, 69, and no file.
    @Test func aSourceThatIsNotThereIsNamed() async throws {
        let sound = try SoundServer()
        let output = desk.path("nothing.mkv")
        let result = try await ProgramRun.podium(["stream", "--audio", "no.such.source", "-t", "2s", "--to", output],
                                                 display: desk.display.display, environment: sound.environment)
        #expect(result.status == 69)
        #expect(result.stderr == "podium: --audio no.such.source: no source named 'no.such.source' on the sound "
                + "server (there: auto_null.monitor)\n", "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
