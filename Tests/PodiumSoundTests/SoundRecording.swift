import PodiumCore
import PodiumCoreTesting
import PodiumTestSupport
import Testing

/// A sound source recorded in a run of its own, and what its samples hold.
enum SoundRecording {
    /// What `source` delivered in a run of its own (no pictures, no outputs), `seconds` of it, as
    /// the Core's recording encoder got it (the left channel): the source on the thread the run
    /// gives it, as `podium stream --audio` runs it, its blocks handed on unbroken (`Unplaced`).
    static func record(_ source: any SoundSource, seconds: Double) async throws
        -> (run: Run, error: PodiumError?, samples: [Float]) {
        let hub = StreamHub()
        let counters = RunCounters(targetFPS: 30, sinkURLs: [], sound: ("recorded", ["source"]))
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
    static func dominantFrequency(_ samples: ArraySlice<Float>) -> Double {
        let candidates = stride(from: 100.0, through: 2_000, by: 10).map { ($0, Tools.power(of: $0, in: samples)) }
        return candidates.max { $0.1 < $1.1 }?.0 ?? 0
    }

    /// The root mean square of `samples`: 0.71 of a sine's amplitude.
    static func rms(_ samples: ArraySlice<Float>) -> Double {
        (samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))).squareRoot()
    }
}
