import Foundation
import Logging
import PodiumCore
import Synchronization

/// Prints the statistics line once a second, appends JSON lines to `--stats-json`, and makes the
/// closing summary.
final class StatsReporter: Sendable {
    private let sampler: Mutex<StatsSampler>
    private let jsonPath: String?
    private let json = Mutex<TextOutput?>(nil)
    private let live: Bool
    private let clock = MonotonicClock()
    private let logger: Logger
    /// The run's state in words, or `nil` while it simply runs.
    private let state: @Sendable () -> String?
    private let layout: LayoutSwitch?

    /// - Parameter jsonPath: where `open()` writes the JSON lines (the path was checked before
    ///   anything was opened).
    /// - Parameter layout: the layout of two sources, said in each sample.
    init(counters: RunCounters, jsonPath: String?, live: Bool, logger: Logger, layout: LayoutSwitch? = nil,
         state: @escaping @Sendable () -> String?) {
        self.state = state
        self.layout = layout
        sampler = Mutex(StatsSampler(counters: counters, time: clock.now(), cpu: processCPUNanoseconds()))
        self.live = live
        self.logger = logger
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
            sample.layout = layout?.layout.description
            if live { StatsLine.show { [sample] in sample.line(width: $0) } }
            write(sample)
        }
    }

    /// The whole run's sample, also written to the JSON file, which is then closed.
    func finish() -> StatsSample {
        let summary = sampler.withLock { $0.summary(time: clock.now(), cpu: processCPUNanoseconds()) }
        write(summary)
        return summary
    }

    /// Appends `sample` as a JSON line. A file that cannot take it (a full disk, a reader gone) is
    /// reported once and abandoned; the outputs go on by their own rules.
    private func write(_ sample: StatsSample) {
        let encoder = JSONEncoder()
        // Keys in one order, line after line (the encoder's own order changes from run to run).
        encoder.outputFormatting = .sortedKeys
        guard let json = json.withLock({ $0 }), let data = try? encoder.encode(sample) else { return }
        if let code = json.write(String(decoding: data, as: UTF8.self) + "\n") {
            let reason = String(cString: strerror(code))
            logger.error("\(json.name): writing failed (\(reason)); no more statistics are written there")
        }
    }
}
