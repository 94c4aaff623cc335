import Foundation
import Logging
import PodiumCore
import Synchronization

/// Prints the statistics line once a second, appends JSON lines to `--stats-json` (the samples,
/// and each change made to the run between them), keeps the rate within the budget when there is
/// one, and makes the closing summary.
final class StatsReporter: Sendable {
    private let sampler: Mutex<StatsSampler>
    private let jsonPath: String?
    private let json = Mutex<TextOutput?>(nil)
    private let live: Bool
    private let clock = MonotonicClock()
    /// When the statistics began: samples and changes count their time from it.
    private let start: UInt64
    private let run: Run
    /// `--max-cpu`, `--fps auto`: what chooses the rate, when the user did not.
    private let budget: Mutex<FrameRateBudget?>
    /// The run's state in words, or `nil` while it simply runs.
    private let state: @Sendable () -> String?
    /// The last second's sample.
    private let latest = Mutex<StatsSample?>(nil)

    /// - Parameter jsonPath: where `open()` writes the JSON lines (the path was checked before
    ///   anything was opened).
    init(run: Run, jsonPath: String?, live: Bool, budget: FrameRateBudget?, state: @escaping @Sendable () -> String?) {
        self.run = run
        self.state = state
        self.budget = Mutex(budget)
        start = clock.now()
        sampler = Mutex(StatsSampler(counters: run.counters, time: start, cpu: processCPUNanoseconds()))
        self.live = live
        self.jsonPath = jsonPath
    }

    /// Opens the JSON file: once the run's parts are open, with the outputs, so a run refused
    /// before (an encoder that cannot open) leaves no file behind.
    func open() throws(PodiumError) {
        guard let jsonPath else { return }
        let file = try TextOutput.open(jsonPath, flag: "--stats-json")
        json.withLock { $0 = file }
    }

    /// Reports once a second until cancelled.
    func run() async {
        while (try? await Task.sleep(for: .seconds(1))) != nil {
            var sample = sampler.withLock { $0.interval(time: clock.now(), cpu: processCPUNanoseconds()) }
            sample.state = state()
            sample.layout = run.control.layout?.layout.description
            sample.recording = run.control.recordings?.recording
            sample.replay = run.control.replay?.replay
            let tuning = run.control.tuning
            sample.targetFPS = tuning.frameRate.framesPerSecond
            let decision = budget.withLock { budget -> FrameRateBudget.Decision? in
                guard budget != nil, run.started.load(ordering: .relaxed) else { return nil }
                let decision = budget?.observe(sample, rate: sample.targetFPS, rates: tuning.rates)
                sample.auto = true
                sample.limitedBy = budget?.limit?.rawValue
                return decision
            }
            latest.withLock { $0 = sample }
            if live { StatsLine.show { [sample] in sample.line(width: $0) } }
            writeChanges()
            write(sample)
            if let decision {
                _ = try? run.control.setFrameRate(decision.framesPerSecond, by: .budget, reason: decision.reason)
            }
        }
    }

    /// What can be changed, as it is now, and the last second's figures: for the control socket.
    func status() -> ControlStatus {
        let tuning = run.control.tuning
        let sample = latest.withLock { $0 }
        return ControlStatus(
            pid: getpid(), fps: tuning.frameRate.framesPerSecond,
            fpsRange: [tuning.bounds.lowerBound, tuning.bounds.upperBound], auto: sample?.auto ?? false,
            limitedBy: sample?.limitedBy, rate: tuning.plannedRate.map { "\($0.tuned(tuning.encoding))" },
            picture: run.control.paused.load(ordering: .relaxed) ? "frozen" : "live",
            layout: run.control.layout?.layout.description, sample: sample)
    }

    /// The whole run's sample, also written to the JSON file, which is then closed.
    func finish() -> StatsSample {
        var summary = sampler.withLock { $0.summary(time: clock.now(), cpu: processCPUNanoseconds()) }
        let rates = run.control.tuning.timeAtRates(at: clock.now())
        if rates.count > 1 {
            summary.secondsAtRates = Dictionary(uniqueKeysWithValues: rates.map {
                ("\($0.framesPerSecond)", $0.duration.seconds)
            })
        }
        summary.targetFPS = run.control.tuning.frameRate.framesPerSecond
        writeChanges()
        write(summary)
        return summary
    }

    /// Appends the changes made since the last call, stamped as the samples are.
    private func writeChanges() {
        for var change in run.control.takeChanges() {
            change.elapsed = Double(change.time &- min(start, change.time)) / 1e9
            write(change)
        }
    }

    /// Appends `record` (a sample, a change) as a JSON line. A file that cannot take it (a full
    /// disk, a reader gone) is reported once and abandoned; the outputs go on by their own rules.
    private func write(_ record: some Encodable) {
        let encoder = JSONEncoder()
        // Keys in one order, line after line (the encoder's own order changes from run to run).
        encoder.outputFormatting = .sortedKeys
        guard let json = json.withLock({ $0 }), let data = try? encoder.encode(record) else { return }
        if let code = json.write(String(decoding: data, as: UTF8.self) + "\n") {
            let reason = String(cString: strerror(code))
            run.logger.error("\(json.name): writing failed (\(reason)); no more statistics are written there")
        }
    }
}
