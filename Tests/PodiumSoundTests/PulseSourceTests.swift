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
        let desktop = PulseSource(request: .desktop, server: server.address)
        let (run, error, samples) = try await SoundRecording.record(desktop, seconds: 1.5)
        #expect(error == nil, "\(String(describing: error))")
        #expect(run.soundDescriptions.first?.contains("(desk.monitor)") == true, "\(run.soundDescriptions)")
        // Past the first half second (the stream's start may come after the run's), 1 s of sound.
        let heard = try #require(samples.count >= 72_000 ? samples[24_000..<72_000] : nil, "\(samples.count) samples")
        // The tone plays at 0.3 of full scale: its RMS is 0.21.
        let rms = Tools.rms(heard)
        #expect((0.15...0.25).contains(rms), "RMS \(rms), \(server.state())")
        #expect(Tools.dominantFrequency(heard) == 440, "\(Tools.dominantFrequency(heard)) Hz")
        #expect(Tools.tonePower(near: 1_000, in: heard) < Tools.tonePower(near: 440, in: heard) / 1_000,
                "the other output's tone is not in the desktop's sound")
        let peak = try #require(run.counters.sound?.sources.first?.peak)
        #expect((-12 ... -9).contains(peak), "the source's peak, 0.3 of full scale is -10.5 dBFS: \(peak)")
    }

    /// PipeWire records the default output's monitor for a name it does not know: a named source
    /// heard at its own tone shows the name was followed.
    @Test func aSourceByNameIsHeardAtItsTone() async throws {
        let (_, error, samples) = try await SoundRecording.record(PulseSource(request: .named("second.monitor"),
                                                               server: server.address), seconds: 1.5)
        #expect(error == nil, "\(String(describing: error))")
        let heard = try #require(samples.count >= 72_000 ? samples[24_000..<72_000] : nil, "\(samples.count) samples")
        #expect(Tools.rms(heard) > 0.15, "RMS \(Tools.rms(heard)), \(server.state())")
        #expect(Tools.dominantFrequency(heard) == 1_000, "\(Tools.dominantFrequency(heard)) Hz")
    }

    @Test func aSourceOrAServerThatIsNotThereIsRefused() async throws {
        let info = try SoundServerInfo.read(server: server.address)
        let missing = #expect(throws: PodiumError.self) { try info.source(for: .named("nowhere.monitor")) }
        #expect(missing?.exitCode == .unavailable && missing?.message.contains("desk.monitor") == true,
                "the sources there are: \(String(describing: missing))")

        // A run whose source is not there ends before it starts, with that error.
        let (run, error, samples) = try await SoundRecording.record(PulseSource(request: .named("nowhere.monitor"),
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
