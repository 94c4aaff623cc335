import Foundation
import PodiumCore
import Synchronization

/// Prints the statistics line once a second, appends JSON lines to `--stats-json`, and makes the
/// closing summary.
final class StatsReporter: Sendable {
    private let sampler: Mutex<StatsSampler>
    private let json: FileHandle?
    private let live: Bool
    private let clock = MonotonicClock()

    /// Creates the JSON file (its path was checked before anything was opened).
    init(counters: PipelineCounters, jsonPath: String?, live: Bool) throws(PodiumError) {
        sampler = Mutex(StatsSampler(counters: counters, time: clock.now(), cpu: processCPUNanoseconds()))
        self.live = live
        if let jsonPath {
            guard FileManager.default.createFile(atPath: jsonPath, contents: nil), let handle = FileHandle(forWritingAtPath: jsonPath) else {
                throw .cannotCreate("--stats-json '\(jsonPath)' cannot be created")
            }
            json = handle
        } else {
            json = nil
        }
    }

    /// Reports once a second until cancelled.
    func run() async {
        while (try? await Task.sleep(for: .seconds(1))) != nil {
            let sample = sampler.withLock { $0.interval(time: clock.now(), cpu: processCPUNanoseconds()) }
            if live { StatsLine.show(sample.line) }
            write(sample)
        }
    }

    /// The whole run's sample, also written to the JSON file, which is then closed.
    func finish() -> StatsSample {
        let summary = sampler.withLock { $0.summary(time: clock.now(), cpu: processCPUNanoseconds()) }
        write(summary)
        try? json?.close()
        return summary
    }

    private func write(_ sample: StatsSample) {
        guard let json, let data = try? JSONEncoder().encode(sample) else { return }
        json.write(data + Data("\n".utf8))
    }
}
