import Foundation
import Logging
import PodiumCore
import PodiumRun
import PodiumTestSupport
import PodiumX11
import Synchronization
import Testing

/// The tests of real parts in-process, one at a time: each runs in real time on two cores, and
/// awaits on the cooperative pool.
@Suite(.serialized) enum InProcess {}

/// A run of real parts in this process: the X11 screen of a private Xvfb, libx264, libavformat's
/// muxers, from a plan as the CLI makes one, without the CLI. What it logs is kept.
struct InProcessRun {
    let session: RunSession
    let log: LogRecorder

    /// - Parameters:
    ///   - outputs: `--to` values.
    ///   - tracksDamage: `false` grabs every slot whole (`--constant-fps`).
    init(display: String, to outputs: [String], fps: Int = 30, duration: Duration? = nil, frames: Int? = nil,
         encode: EncodingDefaults = EncodingDefaults(), tracksDamage: Bool = true, drawsCursor: Bool = false)
        async throws {
        let destinations = try outputs.map { text in
            do throws(OptionParseError) {
                return try OutputCatalog.destination(parsing: text)
            } catch {
                throw TestFailure("--to \(text): \(error.reason)")
            }
        }
        let screen = try await onOwnThread("test-display") { () throws(PodiumError) in
            try ScreenPlan.look(display: display, drawsCursor: drawsCursor, tracksDamage: tracksDamage)
        }
        let capture = CapturePlan(screen)
        let encoding = try EncodingPlan(outputs: OutputRequest.streams(of: destinations),
                                        viewers: ViewerRequest.viewers(of: destinations), source: capture.size,
                                        fps: FrameRate(fps), encode: encode)
        let plan = RunPlan(capture: capture, fps: FrameRate(fps), encoding: encoding,
                           limits: .init(duration: duration, frames: frames))
        log = LogRecorder()
        session = try RunBuilder.build(plan, logger: log.logger)
    }

    var counters: RunCounters { session.run.counters }

    /// Runs to the end; the error that ended it, or `nil`.
    func run() async -> PodiumError? {
        await session.execute()
    }

    /// Runs in the background; returns once capture started.
    func start() async -> Task<PodiumError?, Never> {
        let task = Task { await session.execute() }
        let run = session.run
        let deadline = Date(timeIntervalSinceNow: 20)
        while !run.started.load(ordering: .relaxed) && !run.isStopping && Date() < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return task
    }
}

/// Keeps every message a logger is given, for tests to read.
final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    var logger: Logger {
        Logger(label: "test") { [self] _ in Handler(recorder: self) }
    }

    var messages: [String] { lines.withLock { $0 } }

    /// How many messages contain `text`.
    func count(_ text: String) -> Int { messages.count { $0.contains(text) } }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var logLevel: Logger.Level = .info
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.append("\(event.message)")
        }
    }
}
