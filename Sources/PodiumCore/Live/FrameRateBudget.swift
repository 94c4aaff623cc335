/// Finds and holds the highest frame rate at which a run keeps every frame and stays within its
/// CPU budget (`--max-cpu C`, `--fps auto`), by measurement, one statistics sample a second.
///
/// - Down within 2 s: after two seconds in a row of trouble (Podium's CPU over the budget; a frame's
///   work taking most of its interval, as it does when the machine gets busier, before any frame
///   is lost; an encoder or an output dropping frames; capture missing slots), or at once when the
///   CPU is far over; to the rate the measured cost per frame affords (a step of the ladder at
///   least), not by halves.
/// - Up after 10 s of calm, one step of the ladder, or to the rate between that the cost measured
///   at this rate, scaled, fits 95 % of the budget in. A rate that had to be left again waits twice as long
///   before the next try (up to 80 s), so the rate never swings faster than that.
///
/// The rates it takes are any whole ones within the bounds: a budget is held closer between the
/// ladder's steps (24 to 30 is a quarter more).
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
    /// The CPU measured at the rates held lately (the mean of their last seconds), and when: two
    /// rates give the cost of a frame more. A run costs something at any rate, so a rate's cost is
    /// not its share of another's.
    private var measured: [Int: (cpu: Double, at: Double)] = [:]

    public static let calm = 10.0
    /// How long a rate's measured cost is kept.
    static let memory = 60.0
    public static let settle = 2.0
    /// The share of the budget a step up must fit in, by the cost measured; and the share of its
    /// interval a frame's work may take on one thread.
    static let headroom = 0.95
    static let busy = 0.8

    public init(maxCPU: Double?) {
        self.maxCPU = maxCPU
    }

    /// Looks at one second of the run.
    /// - Parameters:
    ///   - sample: the last second's figures.
    ///   - rate: the rate capture is paced at.
    ///   - rates: the ladder's rates within the run's bounds, lowest first: the first is the floor.
    /// - Returns: a new rate, when one is due.
    public mutating func observe(_ sample: StatsSample, rate: Int, rates: [Int]) -> Decision? {
        let now = sample.elapsed
        recentCPU = (recentCPU + [sample.cpuCores]).suffix(5)
        // The first second after a change was partly at the rate before.
        if recentCPU.count >= 2 {
            measured[rate] = (recentCPU.dropFirst().reduce(0, +) / Double(recentCPU.count - 1), now)
        }
        measured = measured.filter { now - $0.value.at <= Self.memory }
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
            target = min(lower, Self.rate(fitting: work))
            // The machine changed: what other rates cost before says little of what they cost now.
            measured = measured.filter { $0.key == rate }
        } else if found == .cpu, let maxCPU, sample.cpuCores > 0 {
            // What the cost measured at this rate affords (the last two seconds'). Far over, a
            // step of the ladder may be too little; otherwise a frame less a second may do.
            let cpu = recentCPU.suffix(2).reduce(0, +) / Double(recentCPU.suffix(2).count)
            target = min(farOver ? lower : rate - 1, affordable(within: maxCPU, at: rate, costing: cpu))
        }
        target = max(target, rates[0])
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
        guard var higher = rates.first(where: { $0 > rate }) else {
            limit = nil
            return nil
        }
        // What would hold the next rate back: its cost by this rate's (the last seconds'), or a
        // frame's work that would not leave room in its shorter interval. Short of the next step,
        // the highest rate between that fits.
        let cpu = recentCPU.reduce(0, +) / Double(max(1, recentCPU.count))
        limit = nil
        if let maxCPU, cpu > 0, affordable(within: maxCPU, at: rate, costing: cpu) < higher {
            higher = affordable(within: maxCPU, at: rate, costing: cpu)
            limit = .cpu
        }
        // The slow frames of the second must fit too, or going up loses them.
        if let work = Self.work(sample, at: \.p95), work > 0, Self.rate(fitting: work) < higher {
            higher = Self.rate(fitting: work)
            limit = sample.stages.grab.p95 >= work ? .capture : .encoder
        }
        let wait = waits[higher] ?? Self.calm
        // Not for a frame or two more a second: a change line each ten seconds for nothing.
        guard higher > rate + rate / 20, now - max(calmSince, lastChange) >= wait else { return nil }
        let reason = "calm for \(Int(wait)) s" + (maxCPU.map { "; cpu \(cpu.fixed(2)) of \($0.fixed(2)) cores" } ?? "")
        wentUp = (higher, now)
        return change(to: higher, at: now, reason: reason)
    }

    /// The highest rate whose interval a frame's `work` (milliseconds) fits in, with room.
    static func rate(fitting work: Double) -> Int {
        Int(min(1000 / work * busy, 1000))
    }

    /// The highest rate `maxCPU` affords, with headroom, when `rate` costs `cpu` cores: along the
    /// line through the nearest other rate measured lately, or in proportion to the rate. A line's
    /// slope is kept within half and one and a half times the proportion: two close rates' costs
    /// are noisy.
    private func affordable(within maxCPU: Double, at rate: Int, costing cpu: Double) -> Int {
        let proportional = cpu / Double(rate)
        var perFrame = proportional
        if let other = measured.filter({ $0.key != rate }).min(by: { abs($0.key - rate) < abs($1.key - rate) }) {
            let slope = (cpu - other.value.cpu) / Double(rate - other.key)
            perFrame = min(max(slope, proportional / 2), proportional * 1.5)
        }
        let afforded = Double(rate) + (maxCPU * Self.headroom - cpu) / perFrame
        return Int(min(max(afforded, 0), 1000))
    }

    /// The milliseconds a frame takes on the busiest thread: capture's grab, or the encode
    /// stage's conversion and encoding (the median of the second, or another percentile); `nil`
    /// without frames.
    static func work(_ sample: StatsSample, at percentile: KeyPath<StageTimes, Double> = \.p50) -> Double? {
        let stages = sample.stages
        guard stages.encode.count > 0 || stages.grab.count > 0 else { return nil }
        return max(stages.grab[keyPath: percentile],
                   stages.convert[keyPath: percentile] + stages.encode[keyPath: percentile])
    }

    private mutating func change(to rate: Int, at now: Double, reason: String) -> Decision {
        lastChange = now
        troubled = 0
        recentCPU = []
        return Decision(framesPerSecond: rate, reason: reason)
    }
}
