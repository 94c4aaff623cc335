import Foundation
import PodiumCore
import PodiumCoreTesting
import PodiumSound
import PodiumTestSupport
import Synchronization
import Testing

/// The desktop's sound in-process, against a real PipeWire (with its PulseAudio interface) in a
/// private runtime folder, playing a 440 Hz tone into its default output 'desk' and a 1 kHz one
/// into a second output: the sources listed with the desktop's monitor among them, each source
/// heard at its own tone and level, and names or servers that are not there refused with 69.
@Suite(.serialized) struct PulseSourceTests {
    let server: SoundServer

    init() throws {
        server = try SoundServer(tone: 440, secondTone: 1_000)
    }

    /// What `source` delivered in a run of its own (no pictures, no outputs), `seconds` of it, as
    /// the Core's recording encoder got it (the left channel): the source on the thread the run
    /// gives it, as `podium stream --audio` runs it, its blocks handed on unbroken (`Unplaced`).
    func record(_ source: PulseSource, seconds: Double) async throws
        -> (run: Run, error: PodiumError?, samples: [Float]) {
        let hub = StreamHub()
        let counters = RunCounters(targetFPS: 30, sinkURLs: [], sound: ("recorded", ["\(source.request)"]))
        let log = SoundLog()
        let soundCounters = try #require(counters.sound)
        let stage = SoundStage(stream: hub.addStream(), counters: soundCounters, frameInterval: 0,
                               placer: Unplaced.init) { id in FakeSoundEncoder(stream: id, log: log) }
        // Pictures that go nowhere, beside the sound.
        let run = Run(source: FakePushSource(fps: 30), stages: [],
                      sound: Run.SoundBranch(sources: [source], stage: stage),
                      outputs: OutputGroup(outputs: []), hub: hub, counters: counters, limits: .init(),
                      logger: FakeGraph.logger)
        let task = Task { await run.run() }
        let frames = Int64(seconds * Double(SoundFormat.sampleRate))
        await eventually(timeout: seconds + 10) { run.isStopping || log.end >= frames }
        run.stop()
        let error = await task.value
        let samples = log.track.flatMap { [Float](repeating: $0.value, count: $0.range.count) }
        return (run, error, samples)
    }

    /// The frequency (100 Hz to 2 kHz, in steps of 10 Hz) with the most power in `samples` (48 kHz).
    func dominantFrequency(_ samples: ArraySlice<Float>) -> Double {
        let candidates = stride(from: 100.0, through: 2_000, by: 10).map { ($0, Tools.power(of: $0, in: samples)) }
        return candidates.max { $0.1 < $1.1 }?.0 ?? 0
    }

    /// The root mean square of `samples`: 0.71 of a sine's amplitude.
    func rms(_ samples: ArraySlice<Float>) -> Double {
        (samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))).squareRoot()
    }

    @Test func theSourcesListTheDesktopsMonitor() throws {
        let info = try SoundServerInfo.read(server: server.address)
        #expect(info.serverName.contains("PipeWire"), "\(info.serverName)")
        #expect(info.defaultSink == "desk", "\(info)")
        let desktop = try #require(info.desktopSource, "the default output's monitor: \(info.sources)")
        #expect(desktop.name == "desk.monitor" && desktop.monitorOf == "desk", "\(desktop)")
        #expect(try info.source(for: .desktop) == desktop)
        #expect(try info.source(for: .named("second.monitor")).monitorOf == "second", "\(info.sources)")
    }

    @Test func theDesktopIsHeardAtItsTone() async throws {
        let (run, error, samples) = try await record(PulseSource(request: .desktop, server: server.address),
                                                     seconds: 1.5)
        #expect(error == nil, "\(String(describing: error))")
        #expect(run.soundDescriptions.first?.contains("(desk.monitor)") == true, "\(run.soundDescriptions)")
        // Past the first half second (the stream's start may come after the run's), 1 s of sound.
        let heard = try #require(samples.count >= 72_000 ? samples[24_000..<72_000] : nil, "\(samples.count) samples")
        // The tone plays at 0.3 of full scale: its RMS is 0.21.
        #expect((0.15...0.25).contains(rms(heard)), "RMS \(rms(heard)), \(server.state())")
        #expect(dominantFrequency(heard) == 440, "\(dominantFrequency(heard)) Hz")
        #expect(Tools.tonePower(near: 1_000, in: heard) < Tools.tonePower(near: 440, in: heard) / 1_000,
                "the other output's tone is not in the desktop's sound")
        let peak = try #require(run.counters.sound?.sources.first?.peak)
        #expect((-12 ... -9).contains(peak), "the source's peak, 0.3 of full scale is -10.5 dBFS: \(peak)")
    }

    /// PipeWire records the default output's monitor for a name it does not know: a named source
    /// heard at its own tone shows the name was followed.
    @Test func aSourceByNameIsHeardAtItsTone() async throws {
        let (_, error, samples) = try await record(PulseSource(request: .named("second.monitor"),
                                                               server: server.address), seconds: 1.5)
        #expect(error == nil, "\(String(describing: error))")
        let heard = try #require(samples.count >= 72_000 ? samples[24_000..<72_000] : nil, "\(samples.count) samples")
        #expect(rms(heard) > 0.15, "RMS \(rms(heard)), \(server.state())")
        #expect(dominantFrequency(heard) == 1_000, "\(dominantFrequency(heard)) Hz")
    }

    @Test func aSourceOrAServerThatIsNotThereIsRefused() async throws {
        let info = try SoundServerInfo.read(server: server.address)
        let missing = #expect(throws: PodiumError.self) { try info.source(for: .named("nowhere.monitor")) }
        #expect(missing?.exitCode == .unavailable && missing?.message.contains("desk.monitor") == true,
                "the sources there are: \(String(describing: missing))")

        // A run whose source is not there ends before it starts, with that error.
        let (run, error, samples) = try await record(PulseSource(request: .named("nowhere.monitor"),
                                                                 server: server.address), seconds: 1)
        #expect(error?.exitCode == .unavailable
                && error?.message.contains("no source named 'nowhere.monitor'") == true, "\(String(describing: error))")
        #expect(!run.started.load(ordering: .relaxed) && samples.isEmpty)

        let nobody = "unix:\(server.folder.path)/no-server/native"
        let absent = #expect(throws: PodiumError.self) { try SoundServerInfo.read(server: nobody) }
        #expect(absent?.exitCode == .unavailable && absent?.message.contains("no sound server") == true,
                "\(String(describing: absent))")
    }
}

/// Hands on each block as it comes, whatever its place: the source's own samples, in order. The
/// Core's fake placer follows the places, putting silence or trimming wherever the server's
/// delivery and the run's clock differ (by 2 % on a busy machine, which moved a 1 kHz tone to
/// 980 Hz); the real one, PodiumMedia's, resamples instead.
final class Unplaced: SoundPlacing {
    var offset: Int64 { 0 }

    func place(_ samples: UnsafeBufferPointer<Float>, at position: Int64,
               emit: (UnsafeBufferPointer<Float>) -> Void) throws(PodiumError) {
        emit(samples)
    }

    func flush(emit: (UnsafeBufferPointer<Float>) -> Void) throws(PodiumError) {}
}
