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
}
