import Histogram
import Synchronization

/// Percentiles of one stage's time per frame, in milliseconds.
public struct StageTimes: Sendable, Codable, Equatable {
    public var count: Int
    public var p50: Double
    public var p95: Double
    public var p99: Double
    public var max: Double

    public static let empty = StageTimes(count: 0, p50: 0, p95: 0, p99: 0, max: 0)

    public init(count: Int, p50: Double, p95: Double, p99: Double, max: Double) {
        self.count = count
        self.p50 = p50
        self.p95 = p95
        self.p99 = p99
        self.max = max
    }

    init(_ histogram: Histogram<UInt64>) {
        guard histogram.totalCount > 0 else {
            self = .empty
            return
        }
        func ms(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1e6 }
        self.init(
            count: Int(histogram.totalCount),
            p50: ms(histogram.valueAtPercentile(50)),
            p95: ms(histogram.valueAtPercentile(95)),
            p99: ms(histogram.valueAtPercentile(99)),
            max: ms(histogram.max)
        )
    }
}

/// Records how long one pipeline stage takes per frame, for the last interval and the whole run.
/// Recording does not allocate. Thread-safe.
public final class StageTimer: Sendable {
    public let name: String
    private struct Histograms {
        var interval: Histogram<UInt64>
        var run: Histogram<UInt64>
    }
    private let histograms: Mutex<Histograms>

    /// Times up to a minute are tracked, to two significant digits (1 %, finer than the
    /// milliseconds the figures are printed in). Three digits mean eight times the buckets,
    /// and clearing an interval's buckets each second cost a static screen's run a quarter of
    /// its CPU.
    public init(_ name: String) {
        self.name = name
        let blank = Histogram<UInt64>(lowestDiscernibleValue: 1_000, highestTrackableValue: 60_000_000_000,
                                      numberOfSignificantValueDigits: .two)
        histograms = Mutex(Histograms(interval: blank, run: blank))
    }

    /// Adds one measurement, in nanoseconds.
    public func record(nanoseconds: UInt64) {
        let value = min(max(nanoseconds, 1_000), 60_000_000_000)
        histograms.withLock {
            _ = $0.interval.record(value)
            _ = $0.run.record(value)
        }
    }

    /// Times `body` with `clock` and records it.
    @inlinable
    public func measure<T, E: Error>(clock: some PacingClock, _ body: () throws(E) -> T) throws(E) -> T {
        let start = clock.now()
        defer { record(nanoseconds: clock.now() - start) }
        return try body()
    }

    /// The percentiles since the previous call, and a fresh interval.
    public func takeInterval() -> StageTimes {
        histograms.withLock {
            guard $0.interval.totalCount > 0 else { return .empty }
            let times = StageTimes($0.interval)
            $0.interval.reset()
            return times
        }
    }

    /// The percentiles over the whole run.
    public var run: StageTimes { histograms.withLock { StageTimes($0.run) } }
}
