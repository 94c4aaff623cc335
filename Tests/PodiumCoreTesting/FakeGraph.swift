import Foundation
public import Logging
public import PodiumCore
import Synchronization

/// A whole graph of fake parts: a push source the test drives, the encode stage with fake
/// encoders (one log each), and recording outputs, all on a run with its own hub: the graph's
/// rules, in-process, in milliseconds.
public struct FakeGraph: Sendable {
    public typealias Stage = EncodeStage<FakePictureMaker, FakeEncoder>

    public let source: FakePushSource
    public let hub: StreamHub
    public let counters: RunCounters
    public let run: Run
    /// Each encoder's stream id and log, in the order asked.
    public let streams: [Int]
    public let logs: [EncoderLog]
    public let outputs: [RecordingOutput]
    /// The sound's first source, its encoder's log and its stream, in a graph with sound.
    public let sound: FakeSoundSource?
    /// Every sound source, in the order of `soundGains`.
    public let sounds: [FakeSoundSource]
    public let soundLog = SoundLog()
    public let soundStream: Int?

    /// - Parameters:
    ///   - levels: the size level of each encoder (0 is the largest).
    ///   - outputs: for each output, the encoder it records and how it fails.
    ///   - stages: stages beside the encode stage (before it).
    ///   - sound: whether the run has a sound source, which every output records beside its picture.
    ///   - soundGains: each sound source's factor in the mix: one source, as it is, unless told.
    ///   - soundFrameInterval: the frame interval the sound stage lines sound up with (0: none).
    public init(fps: Int = 30, levels: [Int] = [0], keyframeInterval: Duration = .seconds(2),
                outputs: [(encoder: Int, failsToOpen: PodiumError?, failsAfter: Int?)] = [(0, nil, nil)],
                guests: [any GuestSink] = [], stages: [any FrameStage] = [], limits: Run.Limits = .init(),
                sourceFailure: PodiumError? = nil, encoderFailure: PodiumError? = nil, sound: Bool = false,
                soundFailure: PodiumError? = nil, soundGains: [Float] = [1], soundFrameInterval: UInt64 = 0,
                clock: any PacingClock = MonotonicClock()) {
        let hub = StreamHub()
        let streams = levels.map { _ in hub.addStream() }
        let soundStream = sound ? hub.addStream() : nil
        let logs = levels.map { _ in EncoderLog() }
        let counters = RunCounters(targetFPS: fps, sinkURLs: outputs.indices.map { "output \($0)" },
                                   renditions: levels.indices.map { (name: "rendition \($0)", outputs: []) },
                                   sound: sound ? ("fake sound", soundGains.indices.map { "source \($0)" }) : nil)
        self.counters = counters
        let renditions = levels.indices.map { index in
            Stage.Rendition(stream: streams[index], level: levels[index], counters: counters.renditions[index]) {
                [log = logs[index]] id throws(PodiumError) in
                if let encoderFailure { throw encoderFailure }
                return FakeEncoder(stream: id, fps: fps, log: log)
            }
        }
        let levelCount = (levels.max() ?? 0) + 1
        let stage = Stage(makePictures: { () throws(PodiumError) in FakePictureMaker(levels: levelCount) },
                          renditions: renditions, keyframeInterval: keyframeInterval, counters: counters.encode)
        self.outputs = outputs.enumerated().map { index, output in
            RecordingOutput(name: "output \(index)",
                            program: Program(streams: [streams[output.encoder]] + (soundStream.map { [$0] } ?? [])),
                            failsToOpen: output.failsToOpen, failsAfter: output.failsAfter)
        }
        let source = FakePushSource(fps: fps, failsToOpen: sourceFailure)
        self.source = source
        self.soundStream = soundStream
        var soundBranch: Run.SoundBranch?
        if let soundStream, let soundCounters = counters.sound {
            let soundSources = soundGains.map { _ in FakeSoundSource(failsToOpen: soundFailure) }
            let stage = SoundStage(stream: soundStream, counters: soundCounters, gains: soundGains,
                                   frameInterval: soundFrameInterval, placer: FakeSoundPlacer.init) {
                [log = soundLog] id in
                FakeSoundEncoder(stream: id, log: log)
            }
            // Placing is tested with the times given: each source's clock takes its first block.
            soundBranch = Run.SoundBranch(sources: soundSources, stage: stage, settlingBlocks: 1)
            self.sounds = soundSources
        } else {
            self.sounds = []
        }
        self.sound = self.sounds.first
        self.hub = hub
        self.streams = streams
        self.logs = logs
        run = Run(source: source, stages: stages + [stage], sound: soundBranch,
                  outputs: OutputGroup(outputs: self.outputs.map { $0 }, guests: guests, grace: .seconds(2)), hub: hub,
                  counters: counters, limits: limits, logger: Self.logger, clock: clock)
    }

    public static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// Starts the run; returns once capture has started (or the run ended before it could).
    public func start() async -> Task<PodiumError?, Never> {
        let task = Task { await run.run() }
        _ = await eventually(timeout: 10) { run.started.load(ordering: .relaxed) || run.isStopping }
        return task
    }
}

/// Waits until `condition` holds, looking every few milliseconds, for at most `timeout` seconds.
/// - Returns: whether it held.
@discardableResult
public func eventually(timeout: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while !condition() {
        guard Date() < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}
