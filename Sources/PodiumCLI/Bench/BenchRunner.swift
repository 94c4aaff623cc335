import Foundation
import Logging
import PodiumCore
import PodiumMedia
import PodiumRun
import PodiumX11
import Synchronization

/// Runs the real pipeline (capture, convert, encode; packets counted, not sent) once per rate of a
/// sweep, each time with a scene drawing at that rate when the display is a private one.
final class BenchRunner: Sendable {
    struct Plan: Sendable {
        var source: CaptureSource
        var encode: EncodingDefaults
        /// `--audio`: the sound is captured and encoded beside the picture.
        var sound: SoundPlan?
        var rates: [BenchRate]
        /// `--ladder`: each rate is measured with the first rung, the first two, … every rung.
        var ladder: [LadderRung]?
        var seconds: Int
        var scene: SceneKind?
        /// The private X server's process, whose CPU is reported too.
        var xServer: pid_t?
    }

    /// What runs `podium scene`: this very program.
    private let executable = Invocation.current.executable
    /// How fast the scene draws for `max`: a video's usual top rate.
    private static let sceneRateForMax = 60

    private let plan: Plan
    private let logger: Logger
    private let stopFlag = StopFlag()
    private let current = Mutex<Run?>(nil)
    /// What is captured, looked up once for every rate (and once more for `max`, which grabs
    /// every slot): a portal's session, and its dialog, serve the whole sweep.
    private let looked = Mutex<[Bool: CapturePlan]>([:])

    init(plan: Plan, logger: Logger) {
        self.plan = plan
        self.logger = logger
    }

    /// Ends the sweep: the rate being measured stops now and is not reported.
    func stop() {
        stopFlag.raise()
        current.withLock { $0 }?.stop()
    }

    /// What a sweep tells as it goes.
    enum Event: Sendable {
        /// Where the sweep is, for a progress line: `bench: 30 fps (2 of 4), 3 of 5 s`.
        case progress(String)
        /// Once, before the first rate is measured: what is captured and how it is encoded.
        case started(source: String, encoding: String)
        /// A rate's row, as soon as it is measured.
        case measured(BenchRow)
    }

    /// Measures every rate in turn, telling `report` what it does as it goes.
    /// - Returns: the rows measured (fewer than the rates when stopped early), and how it captured and encoded.
    func run(report: @escaping @Sendable (Event) -> Void)
        async throws(PodiumError) -> (rows: [BenchRow], source: String, encoding: String) {
        var rows: [BenchRow] = []
        var source = "", encoding = ""
        // Without a ladder, one step a rate; with one, a step for each added rung.
        let ladders: [[LadderRung]?] = plan.ladder.map { rungs in rungs.indices.map { Array(rungs[...$0]) } } ?? [nil]
        let steps = plan.rates.flatMap { rate in ladders.map { (rate, $0) } }
        for (index, (rate, ladder)) in steps.enumerated() where !stopFlag.isRaised {
            let scene = try plan.scene.map { kind throws(PodiumError) in try startScene(kind, rate: rate) }
            defer {
                scene?.signal(SIGTERM)
                _ = scene?.waitForExit()
            }
            let rungs = ladder.map { ", " + $0.map(\.description).joined(separator: "+") } ?? ""
            let step = "\(rate.framesPerSecond.map { "\($0) fps" } ?? "max")\(rungs) (\(index + 1) of \(steps.count))"
            let measured = try await measure(rate, ladder: ladder) { described in
                if index == 0 { report(.started(source: described.source, encoding: described.encoding)) }
            } tick: { second in
                report(.progress("bench: \(step), \(second) of \(self.plan.seconds) s"))
            }
            guard let measured, !stopFlag.isRaised else { break }
            rows.append(measured.row)
            report(.measured(measured.row))
            (source, encoding) = (measured.source, measured.encoding)
        }
        return (rows, source, encoding)
    }

    /// One rate: a short warm-up (the encoder's first keyframe, the scene settling), then `seconds` measured.
    /// - Parameter described: called once the capture and the encoder are open, before the warm-up.
    private func measure(_ rate: BenchRate, ladder: [LadderRung]?,
                         described: @escaping @Sendable ((source: String, encoding: String)) -> Void,
                         tick: @escaping @Sendable (Int) -> Void)
        async throws(PodiumError) -> (row: BenchRow, source: String, encoding: String)? {
        var source = plan.source
        // Flat out means every slot grabbed, changed or not.
        if rate == .max { source.constantFPS = true }
        let fps = FrameRate(rate.framesPerSecond ?? FrameRate.range.upperBound)
        let capture: CapturePlan
        if let known = looked.withLock({ $0[source.constantFPS] }) {
            capture = known
        } else {
            capture = try await RunSetup.capturePlan(source)
            looked.withLock { $0[source.constantFPS] = capture }
        }
        let encodings = try EncodingPlan(bench: capture.size, fps: fps, encode: plan.encode, ladder: ladder)
        let warmUp: Duration = plan.seconds >= 3 ? .seconds(1) : .milliseconds(500)
        let runPlan = RunPlan(capture: capture, fps: fps, encoding: encodings, sound: plan.sound,
                              limits: .init(duration: warmUp + .seconds(plan.seconds)))
        let session = try RunBuilder.build(runPlan, logger: logger)
        current.withLock { $0 = session.run }
        defer { current.withLock { $0 = nil } }
        if stopFlag.isRaised { return nil }
        let content = plan.scene.map { " (scene \($0))" } ?? ""
        // With a ladder the sizes are in each row; the heading names the rest of the encoding.
        let size = ladder == nil ? "\(encodings.encodings[0].settings.size) " : ""
        let sound = plan.sound.map { sound in
            ", sound \(sound.codec) \(sound.bitrate) of " + sound.inputs.map(\.description).joined(separator: "+")
        } ?? ""
        let description = Mutex((source: "", encoding: ""))
        let started = ReadyLatch(count: 1)
        let running = Task {
            let failure = await session.execute(onStart: { start in
                // `:1 1920x1080+0+0 with MIT-SHM`: the display first, as a heading names what it
                // measured; a PipeWire stream as the start line names it.
                let named = start.sources.first ?? ""
                let method = named.components(separatedBy: " with ").last ?? ""
                let what = named.contains(" with ")
                    ? "\(capture.sources[0].display) \(capture.sources[0].name) with \(method)" : named
                let said = (source: what + content, encoding: size + (start.encoderLabels.first ?? "") + sound)
                description.withLock { $0 = said }
                described(said)
                started.report(nil)
            })
            if !session.run.started.load(ordering: .relaxed) { started.report(nil) }
            return failure
        }
        _ = await started.wait()
        let clock = MonotonicClock()
        var sampler = StatsSampler(counters: session.run.counters, time: clock.now(), cpu: processCPUNanoseconds())
        try? await Task.sleep(for: warmUp)
        _ = sampler.interval(time: clock.now(), cpu: processCPUNanoseconds())
        let serverStart = plan.xServer.flatMap(processCPUNanoseconds(pid:))
        let measuredStart = clock.now()
        let ticking = Task {
            for second in 1...plan.seconds {
                guard (try? await Task.sleep(for: .seconds(1))) != nil else { return }
                tick(second)
            }
        }
        tick(0)
        let failure = await running.value
        ticking.cancel()
        let sample = sampler.interval(time: clock.now(), cpu: processCPUNanoseconds())
        let elapsed = Double(clock.now() - measuredStart) / 1e9
        var serverCores: Double?
        if let serverStart, let serverEnd = plan.xServer.flatMap(processCPUNanoseconds(pid:)) {
            serverCores = Double(serverEnd - serverStart) / 1e9 / elapsed
        }
        // No progress line may follow the row that is printed next.
        await ticking.value
        if let failure { throw failure }
        let said = description.withLock { $0 }
        return (BenchRow(target: rate, sample: sample, xServerCores: serverCores), said.source, said.encoding)
    }

    /// `podium scene` on the private display, drawing at `rate`; returns once its frames show.
    private func startScene(_ kind: SceneKind, rate: BenchRate) throws(PodiumError) -> ChildProcess {
        guard let display = plan.source.display else { throw .software("a scene needs the private display") }
        let fps = rate.framesPerSecond ?? Self.sceneRateForMax
        let scene = try ChildProcess([executable, "scene", "--display", display, "--kind", kind.rawValue,
                                      "--fps", "\(fps)", "--quiet"],
                                     environment: ChildProcess.environment([:]),
                                     files: [1: "/dev/null", 2: "/dev/null"])
        let connection = try XConnection(display: display)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && scene.isRunning {
            let strip = PixelRect(x: 0, y: 0, size: SceneStrip.size)
            if let colors = try? connection.colors(in: strip),
               SceneStrip.read(brightness: { x, y in colors[y * strip.width + x].brightness }) != nil {
                return scene
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        scene.signal(SIGKILL)
        throw .unavailable("the \(kind) scene did not start drawing on \(display)")
    }
}
