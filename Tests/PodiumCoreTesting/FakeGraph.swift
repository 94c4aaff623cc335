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

    /// - Parameters:
    ///   - levels: the size level of each encoder (0 is the largest).
    ///   - outputs: for each output, the encoder it records and how it fails.
    ///   - stages: stages beside the encode stage (before it).
    public init(fps: Int = 30, levels: [Int] = [0], keyframeInterval: Duration = .seconds(2),
                outputs: [(encoder: Int, failsToOpen: PodiumError?, failsAfter: Int?)] = [(0, nil, nil)],
                guests: [any GuestSink] = [], stages: [any FrameStage] = [], limits: Run.Limits = .init(),
                sourceFailure: PodiumError? = nil, encoderFailure: PodiumError? = nil,
                clock: any PacingClock = MonotonicClock()) {
        let hub = StreamHub()
        let streams = levels.map { _ in hub.addStream() }
        let logs = levels.map { _ in EncoderLog() }
        let counters = RunCounters(targetFPS: fps, sinkURLs: outputs.indices.map { "output \($0)" },
                                   renditions: levels.indices.map { (name: "rendition \($0)", outputs: []) })
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
                          renditions: renditions, frameInterval: FrameRate(fps).intervalNanoseconds,
                          keyframeInterval: keyframeInterval, counters: counters.encode)
        self.outputs = outputs.enumerated().map { index, output in
            RecordingOutput(name: "output \(index)", program: Program(streams: [streams[output.encoder]]),
                            failsToOpen: output.failsToOpen, failsAfter: output.failsAfter)
        }
        let source = FakePushSource(fps: fps, failsToOpen: sourceFailure)
        self.source = source
        self.hub = hub
        self.streams = streams
        self.logs = logs
        run = Run(branches: [Run.Branch(source: source, stages: stages + [stage])],
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
