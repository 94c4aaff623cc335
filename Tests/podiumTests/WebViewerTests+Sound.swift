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
        let served = try serve("http://127.0.0.1:\(Tools.freePort())?name=podium.test", display: desk.display.display,
                               seconds: seconds,
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
        // Decoded all along, and never more than the run made. The figure the statistics hold may be
        // two seconds older than the page's count: the page reports once a second, the statistics
        // sample once a second (50 packets a second).
        let decoded = page["audioDecoded"] as? Int ?? 0
        #expect(decoded <= 7 * 50, "\(page)")
        #expect((viewer["soundDecoded"] as? Int ?? 0) >= decoded - 2 * 50, "\(viewer)")
        let soundLatency = (viewer["soundLatency"] as? [String: Any])?["p50"] as? Double ?? 0
        let pictureLatency = (viewer["latency"] as? [String: Any])?["p50"] as? Double ?? 0
        #expect(soundLatency > 0 && soundLatency < 400, "sound from capture to play: \(viewer)")
        // A picture waits for the sound's delay and the sound's way out (42 ms in headless Chromium),
        // painted at a display refresh. One that did not wait would come about 70 ms sooner.
        #expect(pictureLatency >= soundLatency - 30 && pictureLatency <= soundLatency + 80,
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

    /// A still screen sends a page nothing (no picture a second), and a page that places its
    /// pictures beside the sound (Media Source Extensions) plays the sound on over its last
    /// picture, told that it lasts until the next; when the screen moves again its pictures play.
    /// (With a picture said to last a second, Chromium plays the sound on for 3 s past its end and
    /// then stops, 4 s in all; with a picture a second, more than three are painted while still.)
    @Test func aStillScreenSendsAPageNothingAndItsSoundPlaysOn() throws {
        let desk = try PrivateDesk()
        let sound = try SoundServer(tone: 1_000)
        let served = try serve("http://127.0.0.1:\(Tools.freePort())?name=podium.test", display: desk.display.display,
                               seconds: 20, more: ["--audio"], environment: sound.environment)
        let link = served.link.replacingOccurrences(of: "127.0.0.1", with: "podium.test")
        // The screen moves again 12 s in, the page having joined in the first few (Chromium starting).
        let mover = Thread {
            Thread.sleep(forTimeInterval: 12)
            guard let scene = try? Tools.scene(on: desk.display.display) else { return }
            Thread.sleep(forTimeInterval: 7)
            _ = try? scene.interrupt()
        }
        mover.start()
        // The sound played while no more than three pictures had been painted (the first, and a
        // keyframe or two asked for), remembered on the page.
        let stillSound = "(() => { if (podium.painted <= 3) podium.stillSound = podium.audioDecoded; "
            + "return podium.stillSound || 0; })()"
        let page = try watch(link, frames: 0, until: "\(stillSound) >= 5 * 47 && podium.painted >= 30",
                             flags: [Self.overTheLAN, Self.soundWithoutAClick])
        #expect(page["decoder"] as? String == "mse", "\(page)")
        #expect(page["audioState"] as? String == "running", "\(page)")
        #expect(page["stillSound"] as? Int ?? 0 >= 5 * 47, "5 s of sound over a still picture: \(page)")
        _ = try served.run.interrupt()
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

    /// Installed in the page once: notes when each picture painted turns white (the clapper's
    /// flash), reading the frame before it is drawn, and when the analyser first hears each beep
    /// (at a display refresh, plus the sound's way out), in `window.podium.clapper`; true once
    /// there are `count` of each.
    static func clapperWatch(count: Int) -> String {
        """
        (() => { if (!podium.clapper) { const seen = podium.clapper = { flashes: [], beeps: [], white: false, \
        loud: false }; const probe = new OffscreenCanvas(4, 4).getContext('2d'); const draw = context.drawImage; \
        context.drawImage = function (frame, ...rest) { probe.drawImage(frame, 0, 0, 4, 4); \
        const white = probe.getImageData(1, 1, 1, 1).data[0] > 128; \
        if (white && !seen.white) seen.flashes.push(performance.now()); seen.white = white; \
        return draw.call(this, frame, ...rest); }; const samples = new Float32Array(2048); const listen = () => { \
        requestAnimationFrame(listen); if (podium.audioState !== 'running') return; \
        sound.analyser.getFloatTimeDomainData(samples); let peak = 0; \
        for (const sample of samples) peak = Math.max(peak, Math.abs(sample)); const loud = peak > 0.05; \
        const out = (sound.context.baseLatency + sound.context.outputLatency) * 1000; \
        if (loud && !seen.loud) seen.beeps.push(performance.now() + out); seen.loud = loud; }; \
        requestAnimationFrame(listen); } \
        return podium.clapper.flashes.length >= \(count) && podium.clapper.beeps.length >= \(count); })()
        """
    }

    /// The clapper flashes the screen and beeps at once, each second: on the page each beep is
    /// heard with its flash, as the picture waits for the sound's delay. The analyser is looked at
    /// each display refresh, so a beep is found up to 17 ms late; a page kept busy (two cores shared
    /// with the run and the sound server) paints a refresh or two late.
    @Test func theClappersFlashAndBeepReachThePageTogether() throws {
        let desk = try PrivateDesk()
        let sound = try SoundServer()
        let scene = try Tools.start(Tools.podium.path, ["scene", "--display", desk.display.display, "--kind", "clapper",
                                                        "--quiet"], environment: sound.pipeWireEnvironment)
        defer { _ = try? scene.interrupt() }
        let served = try serve("http://127.0.0.1:\(Tools.freePort())", display: desk.display.display, seconds: 12,
                               more: ["--audio"], environment: sound.pipeWireEnvironment)
        let page = try watch(served.link, frames: 1, until: Self.clapperWatch(count: 7),
                             flags: [Self.soundWithoutAClick])
        _ = try served.run.interrupt()
        let clapper = page["clapper"] as? [String: Any] ?? [:]
        let flashes = clapper["flashes"] as? [Double] ?? []
        let beeps = clapper["beeps"] as? [Double] ?? []
        // Each flash and the beep nearest it, a second apart from the next pair.
        var offsets: [Double] = []
        for flash in flashes {
            let nearest = beeps.map { beep -> Double in beep - flash }.min { abs($0) < abs($1) }
            if let nearest, abs(nearest) < 500 { offsets.append(nearest) }
        }
        offsets.sort()
        #expect(offsets.count >= 6, "flashes \(flashes), beeps \(beeps)")
        // Heard with its flash: a picture that did not wait for its sound would come about 150 ms sooner.
        let median = offsets.isEmpty ? Double.infinity : offsets[offsets.count / 2]
        #expect(abs(median) < 60, "offsets (sound less picture, ms): \(offsets)")
        // A packet later than the last seconds' slowest moves the sound on, once: one beep may stray.
        #expect(offsets.count(where: { abs($0) >= 120 }) <= 1, "offsets (sound less picture, ms): \(offsets)")
    }
}
