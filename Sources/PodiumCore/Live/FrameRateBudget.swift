/// Finds and holds the highest frame rate at which a run keeps every frame and stays within its
/// CPU budget (`--max-cpu C`, `--fps auto`), by measurement, one statistics sample a second.
///
/// - Down within 2 s: after two seconds in a row of trouble (Podium's CPU over the budget; a frame's
///   work taking most of its interval, as it does when the machine gets busier, before any frame
///   is lost; an encoder or an output dropping frames; capture missing slots), or at once when the
///   CPU is far over; to the rate the measured cost per frame affords (a step at least), not by
///   halves.
/// - Up after 10 s of calm, one step, and only when the cost measured at this rate, scaled to the
///   next, fits the budget. A rate that had to be left again waits twice as long before the next
///   try (up to 80 s), so the rate never swings faster than that.
///
/// Pure logic: the stats reporter feeds it samples and carries out what it decides.
public struct FrameRateBudget: Sendable {
    /// What holds the rate below the ceiling.
    public enum Limit: String, Sendable, Codable {
        case cpu, encoder, sink, capture
    }

    /// A new rate, and why.
    public struct Decision: Sendable, Equatable {
        public var framesPerSecond: Int
        public var reason: String
    }

    /// Cores Podium may use; `nil`: no budget but keeping every frame.
    public let maxCPU: Double?
    /// What held the rate down last; `nil` while nothing does.
    public private(set) var limit: Limit?
    /// When the rate last changed, or trouble was last seen, in seconds of the run.
    private var calmSince = 0.0
    private var lastChange = 0.0
    /// Seconds in a row with trouble.
    private var troubled = 0
    /// How long to wait before going up to a rate again, by rate (10 s unless it had to be left).
    private var waits: [Int: Double] = [:]
    /// The rate last gone up to, and when: leaving it soon after doubles its wait.
    private var wentUp: (rate: Int, at: Double)?
    /// The CPU of the last seconds at this rate: one second is too noisy to predict the next rate's.
    private var recentCPU: [Double] = []

    public static let calm = 10.0
    public static let settle = 2.0
    /// The share of the budget a step up must fit in, by the cost measured; and the share of its
    /// interval a frame's work may take on one thread.
    static let headroom = 0.9
    static let busy = 0.8

    public init(maxCPU: Double?) {
        self.maxCPU = maxCPU
    }

    /// Looks at one second of the run.
    /// - Parameters:
    ///   - sample: the last second's figures.
    ///   - rate: the rate capture is paced at.
    ///   - rates: the rates the run may take, lowest first.
    /// - Returns: a new rate, when one is due.
    public mutating func observe(_ sample: StatsSample, rate: Int, rates: [Int]) -> Decision? {
        let now = sample.elapsed
        recentCPU = (recentCPU + [sample.cpuCores]).suffix(5)
        let trouble = self.trouble(in: sample, rate: rate)
        guard let (found, words) = trouble else {
            troubled = 0
            return stepUp(sample, rate: rate, rates: rates, now: now)
        }
        troubled += 1
        calmSince = now
        limit = found
        let farOver = found == .cpu && sample.cpuCores > (maxCPU ?? .infinity) * 1.3
        guard troubled >= 2 || farOver, now - lastChange >= Self.settle else { return nil }
        guard let lower = rates.last(where: { $0 < rate }) else { return nil }
        var target = lower
        if found == .encoder || found == .capture, let work = Self.work(sample), work > 0 {
            // The highest rate whose interval the work per frame fits in.
            target = min(lower, rates.last(where: { 1000 / Double($0) * Self.busy >= work }) ?? rates[0])
        } else if found == .cpu, let maxCPU, sample.cpuCores > 0 {
            // What the cost per frame measured at this rate affords (the last two seconds').
            let cpu = recentCPU.suffix(2).reduce(0, +) / Double(recentCPU.suffix(2).count)
            let affordable = Double(rate) * maxCPU / cpu * Self.headroom
            target = min(lower, rates.last(where: { Double($0) <= affordable }) ?? rates[0])
        }
        if let wentUp, wentUp.rate == rate, now - wentUp.at < 3 * Self.calm {
            waits[rate] = min(8 * Self.calm, 2 * (waits[rate] ?? Self.calm))
        }
        wentUp = nil
        return change(to: target, at: now, reason: words)
    }

    private func trouble(in sample: StatsSample, rate: Int) -> (Limit, String)? {
        if let maxCPU, sample.cpuCores > maxCPU * 1.05 {
            return (.cpu, "cpu \(sample.cpuCores.fixed(2)) of \(maxCPU.fixed(2)) cores")
        }
        let drops = sample.drops
        if drops.encoder > 0 {
            return (.encoder, "the encoder dropped \(drops.encoder) frame\(drops.encoder == 1 ? "" : "s")")
        }
        let interval = 1000 / Double(rate)
        if let work = Self.work(sample), work > interval * Self.busy {
            let which: Limit = sample.stages.grab.p50 >= work ? .capture : .encoder
            return (which, "a frame's \(which == .capture ? "grab" : "encoding") takes \(work.fixed(0)) ms "
                    + "of its \(interval.fixed(0))")
        }
        if drops.sinks > 0 { return (.sink, "an output dropped \(drops.sinks) packet\(drops.sinks == 1 ? "" : "s")") }
        // A slot or two missed is the machine's noise; more is capture falling behind.
        if drops.skipped > max(1, rate / 20) {
            return (.capture, "capture missed \(drops.skipped) slots")
        }
        return nil
    }

    private mutating func stepUp(_ sample: StatsSample, rate: Int, rates: [Int], now: Double) -> Decision? {
        guard let higher = rates.first(where: { $0 > rate }) else {
            limit = nil
            return nil
        }
        // What would hold the next rate back: its cost by this rate's (the last seconds'), or a
        // frame's work that would not leave room in its shorter interval.
        let cpu = recentCPU.reduce(0, +) / Double(max(1, recentCPU.count))
        if let maxCPU, cpu * Double(higher) / Double(rate) > maxCPU * Self.headroom {
            limit = .cpu
        } else if let work = Self.work(sample), work > 1000 / Double(higher) * Self.busy {
            limit = sample.stages.grab.p50 >= work ? .capture : .encoder
        } else {
            limit = nil
        }
        let wait = waits[higher] ?? Self.calm
        guard limit == nil, now - max(calmSince, lastChange) >= wait else { return nil }
        let reason = "calm for \(Int(wait)) s" + (maxCPU.map { "; cpu \(cpu.fixed(2)) of \($0.fixed(2)) cores" } ?? "")
        wentUp = (higher, now)
        return change(to: higher, at: now, reason: reason)
    }

    /// The milliseconds a frame takes on the busiest thread: capture's grab, or the encode
    /// stage's conversion and encoding (the median of the second); `nil` without frames.
    static func work(_ sample: StatsSample) -> Double? {
        let stages = sample.stages
        guard stages.encode.count > 0 || stages.grab.count > 0 else { return nil }
        return max(stages.grab.p50, stages.convert.p50 + stages.encode.p50)
    }

    private mutating func change(to rate: Int, at now: Double, reason: String) -> Decision {
        lastChange = now
        troubled = 0
        recentCPU = []
        return Decision(framesPerSecond: rate, reason: reason)
    }
}
