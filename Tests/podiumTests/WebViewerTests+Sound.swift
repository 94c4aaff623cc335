import Foundation
import PodiumTestSupport
import Testing

/// The run's sound in the browser viewer (`--audio`), from a private PipeWire whose default output
/// plays a 1 kHz tone: Chromium decodes it with WebCodecs' AudioDecoder or plays it from a second
/// SourceBuffer, and the page's AnalyserNode hears the tone. Chromium is told it may start sound
/// without a click, except where the click is what is tested.
extension WebViewerTests {
    static let soundWithoutAClick = "--autoplay-policy=no-user-gesture-required"
    /// Chromium on plain HTTP to a name that is not local: the page uses Media Source Extensions.
    static let overTheLAN = "--host-resolver-rules=MAP podium.test 127.0.0.1"

    /// The loudest frequency the page's AnalyserNode hears now, in Hz; read from the page's own
    /// `sound`, which its script declares at the top level.
    static let loudestFrequency = """
        (() => { const analyser = sound.analyser; if (!analyser) return 0; \
        const bins = new Float32Array(analyser.frequencyBinCount); analyser.getFloatFrequencyData(bins); \
        let loudest = 1; for (let i = 1; i < bins.length; i++) if (bins[i] > bins[loudest]) loudest = i; \
        return loudest * sound.context.sampleRate / analyser.fftSize; })()
        """

    /// The page hears the tone: loud enough, and at 1 kHz (a bin of the analyser is 23 Hz wide).
    static let hearsTheTone = "window.podium.audioLevel > 0.05 && Math.abs(\(loudestFrequency) - 1000) < 50"

    /// A run with sound, and what it records from: a display and a sound server of its own.
    struct SoundRun {
        let served: Served
        let sound: SoundServer
        let desk: PrivateDesk
    }

    /// Starts `podium stream --audio --audio-codec codec` to a viewer, from a display and a sound
    /// server of its own playing the tone; every slot sends a frame, so pages paint at 30 fps.
    func serveWithSound(codec: String, seconds: Int) throws -> SoundRun {
        let desk = try PrivateDesk()
        let sound = try SoundServer(tone: 1_000)
        let served = try serve("http://127.0.0.1:\(Tools.freePort())", display: desk.display.display, seconds: seconds,
                               more: ["--audio", "--audio-codec", codec, "--constant-fps"],
                               environment: sound.environment)
        return SoundRun(served: served, sound: sound, desk: desk)
    }

    /// The one viewer's figures once the run is over.
    func soleViewer(of run: SoundRun) throws -> [String: Any] {
        let served = run.served
        let result = try served.run.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let figures = try viewerFigures(served.stats)
        #expect(figures.count == 1, "\(figures)")
        return figures.values.first ?? [:]
    }

    /// With WebCodecs, every sound packet is decoded (as many as the seconds watched hold) and
    /// played on the page's timeline, the tone is heard, and the pictures wait for their sound:
    /// picture and sound reach the viewer as late as each other.
    @Test(arguments: ["aac", "opus"])
    func chromiumPlaysTheSoundWithWebCodecs(codec: String) throws {
        let run = try serveWithSound(codec: codec, seconds: 7)
        let served = run.served
        // Three seconds of sound: 47 AAC packets a second, 50 Opus packets.
        let page = try watch(served.link, frames: 30,
                             until: "window.podium.audioDecoded >= 140 && \(Self.hearsTheTone)",
                             flags: [Self.soundWithoutAClick])
        #expect(page["decoder"] as? String == "webcodecs", "\(page)")
        #expect(page["audioState"] as? String == "running", "\(page)")
        let viewer = try soleViewer(of: run)
        #expect(viewer["sound"] as? String == "running", "\(viewer)")
        // Decoded all along (the page's last report came up to a second before it stopped: 50 packets), and
        // never more than the run made.
        let decoded = page["audioDecoded"] as? Int ?? 0
        #expect(decoded <= 7 * 50, "\(page)")
        #expect((viewer["soundDecoded"] as? Int ?? 0) >= decoded - 75, "\(viewer)")
        let soundLatency = (viewer["soundLatency"] as? [String: Any])?["p50"] as? Double ?? 0
        let pictureLatency = (viewer["latency"] as? [String: Any])?["p50"] as? Double ?? 0
        #expect(soundLatency > 0 && soundLatency < 400, "sound from capture to play: \(viewer)")
        // A picture waits for the sound's delay (and the sound's way out), painted at a display
        // refresh: no sooner, and at most a refresh and a little later.
        #expect(pictureLatency >= soundLatency - 5 && pictureLatency <= soundLatency + 60,
                "picture \(pictureLatency) ms, sound \(soundLatency) ms: \(viewer)")
    }

    /// Plain HTTP over the LAN: Media Source Extensions play the sound from a SourceBuffer of its
    /// own beside the picture's, and the video plays on, near the live edge.
    @Test(arguments: ["aac", "opus"])
    func plainHTTPPlaysTheSoundWithMediaSourceExtensions(codec: String) throws {
        let run = try serveWithSound(codec: codec, seconds: 7)
        let served = run.served
        let link = served.link.replacingOccurrences(of: "127.0.0.1", with: "podium.test")
        let page = try watch(link, frames: 60, until: "window.podium.audioBuffered > 1 && \(Self.hearsTheTone)",
                             flags: [Self.overTheLAN, Self.soundWithoutAClick])
        #expect(page["decoder"] as? String == "mse", "\(page)")
        #expect(page["audioState"] as? String == "running", "\(page)")
        let viewer = try soleViewer(of: run)
        // A second of sound played at least (the page's count: its last report came up to a second before it stopped).
        #expect((page["audioDecoded"] as? Int ?? 0) >= 47, "the element played the sound: \(page)")
        #expect((viewer["soundDecoded"] as? Int ?? 0) > 0, "\(viewer)")
        let pictureLatency = (viewer["latency"] as? [String: Any])?["p50"] as? Double ?? 0
        let soundLatency = (viewer["soundLatency"] as? [String: Any])?["p50"] as? Double ?? 0
        #expect(pictureLatency > 0 && pictureLatency < 600, "\(viewer)")
        #expect(soundLatency > 0 && soundLatency < 600, "\(viewer)")
    }

    /// Without a gesture Chromium keeps sound from starting: the page says "Click for sound" over a
    /// picture that plays on, muted; one click starts the sound and the button goes.
    @Test(arguments: ["webcodecs", "mse"])
    func theFirstClickStartsTheSound(decoder: String) throws {
        let run = try serveWithSound(codec: "aac", seconds: 8)
        let served = run.served
        let link = decoder == "mse" ? served.link.replacingOccurrences(of: "127.0.0.1", with: "podium.test")
            : served.link
        let button = "document.getElementById('sound')"
        let page = try watch(link, frames: 30,
                             until: "window.podium.audioState === 'suspended' && !\(button).hidden "
                                + "&& \(button).textContent.includes('Click for sound')",
                             flags: decoder == "mse" ? [Self.overTheLAN] : [], screenshot: run.desk.path("click.png"),
                             click: "#sound", then: "window.podium.audioState === 'running' && \(button).hidden "
                                + "&& \(Self.hearsTheTone)")
        #expect(page["decoder"] as? String == decoder, "\(page)")
        #expect(page["audioState"] as? String == "running", "\(page)")
        #expect(FileManager.default.fileExists(atPath: run.desk.path("click.png")))
        _ = try served.run.interrupt()
    }
}
