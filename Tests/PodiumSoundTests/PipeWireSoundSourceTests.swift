import Foundation
import PodiumCore
import PodiumCoreTesting
import PodiumSound
import PodiumTestSupport
import Synchronization
import Testing

/// Sound read straight from PipeWire in-process, against the tests' private PipeWire playing a
/// 440 Hz tone into 'desk' (the default output) and a 1 kHz one into 'second', each from a player
/// of its own ('tone-440', 'tone-1000'): the desktop, a sink's monitor by name, and one
/// application's stream each heard at their tone; names that are not there refused with 69,
/// listing what is.
@Suite(.serialized) struct PipeWireSoundSourceTests {
    let server: SoundServer

    init() throws {
        server = try SoundServer(tone: 440, secondTone: 1_000)
    }

    func source(_ request: SoundRequest) -> PipeWireSoundSource {
        PipeWireSoundSource(request: request, remote: server.pipeWireSocket)
    }

    /// What `source` delivered in a run of its own, 1.5 s of it; past its first half second (the
    /// stream's start may come after the run's), 1 s.
    func heard(_ request: SoundRequest) async throws -> (run: Run, samples: ArraySlice<Float>) {
        let (run, error, samples) = try await SoundRecording.record(source(request), seconds: 1.5)
        #expect(error == nil, "\(String(describing: error))")
        let heard = try #require(samples.count >= 72_000 ? samples[24_000..<72_000] : nil, "\(samples.count) samples")
        return (run, heard)
    }

    @Test func thePipeWireIsFoundAndTheDesktopIsHeardAtItsTone() async throws {
        #expect(PipeWireSoundSource.isReachable(remote: server.pipeWireSocket))
        #expect(!PipeWireSoundSource.isReachable(remote: server.folder.appendingPathComponent("none").path))
        let (run, samples) = try await heard(.desktop)
        #expect(run.soundDescriptions.first == "sound from what the default output plays on PipeWire",
                "\(run.soundDescriptions)")
        #expect(Tools.dominantFrequency(samples) == 440, "\(Tools.dominantFrequency(samples)) Hz")
        #expect((0.15...0.25).contains(Tools.rms(samples)), "RMS \(Tools.rms(samples))")
    }

    @Test func aMonitorByNameAndAnApplicationAreEachHeardAtTheirTone() async throws {
        let (_, second) = try await heard(.named("second.monitor"))
        #expect(Tools.dominantFrequency(second) == 1_000, "\(Tools.dominantFrequency(second)) Hz")
        let (run, player) = try await heard(.application("tone-1000"))
        #expect(run.soundDescriptions.first?.contains("the sound of tone-1000") == true, "\(run.soundDescriptions)")
        #expect(Tools.dominantFrequency(player) == 1_000, "\(Tools.dominantFrequency(player)) Hz")
        #expect(Tools.tonePower(near: 440, in: player) < Tools.tonePower(near: 1_000, in: player) / 1_000,
                "the desktop's tone is not in the application's sound")
    }

    @Test func namesThatAreNotThereAreRefusedWithWhatIs() async throws {
        let (run, error, samples) = try await SoundRecording.record(source(.named("nowhere.monitor")), seconds: 1)
        #expect(error?.exitCode == .unavailable && error?.message.contains("no source named 'nowhere.monitor'") == true
                && error?.message.contains("desk.monitor") == true, "\(String(describing: error))")
        #expect(!run.started.load(ordering: .relaxed) && samples.isEmpty)
        let (_, missing, _) = try await SoundRecording.record(source(.application("nosuchplayer")), seconds: 1)
        #expect(missing?.exitCode == .unavailable && missing?.message.contains("tone-440") == true,
                "the applications playing: \(String(describing: missing))")
    }
}
