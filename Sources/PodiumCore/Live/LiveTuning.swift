import Synchronization

/// What a run lets change while it goes on — by the presenter's keys, the control socket or the
/// budget — and what capture and the encoders read of it: the frame rate within its bounds, and
/// how far the encoders' bit rate or quality is moved from the plan's.
///
/// Capture reads the rate at every slot (an atomic load); an encoder reads `version` before each
/// frame and takes `encoding` again when it moved. Thread-safe.
public final class LiveTuning: Sendable {
    /// The rates `+` and `-` step along, within the bounds (and to the bounds' own ends).
    public static let ladder = [5, 10, 15, 20, 24, 30, 48, 60, 90, 120, 144]
    /// How far the bit rate may be moved from the plan's, as a factor.
    public static let bitrateFactors = 0.1...4.0

    /// The rates the run may take.
    public let bounds: ClosedRange<Int>
    /// The first encoder's rate control as planned: what a change of bit rate or quality is said in;
    /// `nil` when nothing is encoded (a mirror window alone).
    public let plannedRate: EncoderRate?
    private let rate: Atomic<Int>
    private let state: Mutex<State>
    private let changes = Atomic<UInt64>(0)

    private struct State {
        var encoding: EncoderTuning
        /// Nanoseconds spent at each rate, and since when at the current one (0: not started).
        var timeAtRates: [Int: UInt64] = [:]
        var since: UInt64 = 0
    }

    public init(frameRate: FrameRate, bounds: ClosedRange<Int> = FrameRate.range, plannedRate: EncoderRate?) {
        let start = min(max(frameRate.framesPerSecond, bounds.lowerBound), bounds.upperBound)
        self.bounds = bounds
        self.plannedRate = plannedRate
        rate = Atomic(start)
        state = Mutex(State(encoding: EncoderTuning(framesPerSecond: start)))
    }

    /// The rate capture is paced at now.
    public var frameRate: FrameRate { FrameRate(rate.load(ordering: .relaxed)) }

    /// Counts the changes the encoders act on: one that saw another count reads `encoding` again.
    public var version: UInt64 { changes.load(ordering: .acquiring) }

    /// What the encoders are asked for now.
    public var encoding: EncoderTuning { state.withLock { $0.encoding } }

    /// The rates of the ladder within the bounds, and the bounds' ends when they are the user's,
    /// lowest first.
    public var rates: [Int] {
        let rates = Self.ladder.filter(bounds.contains)
        guard bounds != FrameRate.range else { return rates }
        return Array(Set(rates + [bounds.lowerBound, bounds.upperBound])).sorted()
    }

    /// The rate `steps` steps along the ladder from the current one, within the bounds; `nil`
    /// when there is none that way.
    public func rate(steppedBy steps: Int) -> Int? {
        let current = rate.load(ordering: .relaxed)
        let above = rates.filter { $0 > current }, below = rates.filter { $0 < current }
        if steps > 0 { return above.dropFirst(steps - 1).first }
        if steps < 0 { return below.dropLast(-steps - 1).last }
        return nil
    }

    /// Capture starts at `time` (`MonotonicClock` nanoseconds): the time at each rate counts from it.
    public func began(at time: UInt64) {
        state.withLock { $0.since = max(time, 1) }
    }

    /// Sets the frame rate (within the bounds, checked by the caller).
    /// - Parameter time: now, on the clock `began(at:)` was given.
    /// - Returns: the rate before, or `nil` when it was this one already.
    func setFrameRate(_ value: Int, at time: UInt64) -> Int? {
        let before = rate.exchange(value, ordering: .relaxed)
        guard before != value else { return nil }
        state.withLock { state in
            if state.since > 0 {
                state.timeAtRates[before, default: 0] += time &- min(state.since, time)
                state.since = max(time, 1)
            }
            state.encoding.framesPerSecond = value
        }
        changes.add(1, ordering: .releasing)
        return before
    }

    /// Changes what the encoders are asked for.
    /// - Returns: before and after, or `nil` when `body` left it as it was.
    func changeEncoding(_ body: (inout EncoderTuning) -> Void) -> (before: EncoderTuning, after: EncoderTuning)? {
        let changed = state.withLock { state -> (EncoderTuning, EncoderTuning)? in
            let before = state.encoding
            body(&state.encoding)
            state.encoding.bitrateFactor = min(max(state.encoding.bitrateFactor, Self.bitrateFactors.lowerBound),
                                               Self.bitrateFactors.upperBound)
            return state.encoding == before ? nil : (before, state.encoding)
        }
        if changed != nil { changes.add(1, ordering: .releasing) }
        return changed.map { (before: $0.0, after: $0.1) }
    }

    /// How long capture ran at each rate, up to `time`, the highest rate first.
    public func timeAtRates(at time: UInt64) -> [(framesPerSecond: Int, duration: Duration)] {
        let current = rate.load(ordering: .relaxed)
        let times = state.withLock { state in
            var times = state.timeAtRates
            if state.since > 0 { times[current, default: 0] += time &- min(state.since, time) }
            return times
        }
        return times.sorted { $0.key > $1.key }.map { (framesPerSecond: $0.key, duration: .nanoseconds($0.value)) }
    }
}

/// How an encoder's rate is controlled: a bit rate, or a constant quality (crf, lower is better).
public enum EncoderRate: Sendable, Equatable, CustomStringConvertible {
    case bitrate(Bitrate)
    case quality(Double)

    /// x264's own constant quality, which an encoder given neither a bit rate nor `--crf` keeps.
    public static let defaultQuality = 23.0

    public var description: String {
        switch self {
        case .bitrate(let bitrate): "\(bitrate)bit/s"
        case .quality(let quality): "crf \(quality.plain)"
        }
    }

    /// This rate moved as `tuning` asks.
    public func tuned(_ tuning: EncoderTuning) -> EncoderRate {
        switch self {
        case .bitrate(let bitrate): .bitrate(tuning.bitrate(planned: bitrate))
        case .quality(let quality): .quality(tuning.quality(planned: quality))
        }
    }
}

/// What every encoder is asked for while the run goes on, relative to its plan (the renditions of
/// a ladder keep their proportions).
public struct EncoderTuning: Sendable, Equatable {
    /// The rate frames come at now.
    public var framesPerSecond: Int
    /// The planned bit rate times this.
    public var bitrateFactor = 1.0
    /// Added to the planned constant quality (crf): higher is smaller and worse.
    public var qualityShift = 0.0
    /// The most one encoder's receiver can take now (a WebRTC output's feedback); `nil`: no limit.
    /// Set for that encoder alone.
    public var networkBitrate: Bitrate?

    /// `<` and `>`: one step is a quarter more or less bit rate, or a crf two lower or higher.
    public static let bitrateStep = 1.25
    public static let qualityStep = 2.0
    /// The crf values H.264 and HEVC take.
    public static let qualities = 0.0...51.0

    public init(framesPerSecond: Int) {
        self.framesPerSecond = framesPerSecond
    }

    public func bitrate(planned: Bitrate) -> Bitrate {
        let tuned = planned.scaled(by: bitrateFactor)
        guard let networkBitrate, networkBitrate.bitsPerSecond < tuned.bitsPerSecond else { return tuned }
        return networkBitrate
    }

    public func quality(planned: Double) -> Double {
        min(max(planned + qualityShift, Self.qualities.lowerBound), Self.qualities.upperBound)
    }

    /// `steps` steps of `<` (negative) or `>` (positive).
    public mutating func stepRate(by steps: Int) {
        for _ in 0..<abs(steps) {
            bitrateFactor = steps > 0 ? bitrateFactor * Self.bitrateStep : bitrateFactor / Self.bitrateStep
        }
        qualityShift = min(max(qualityShift - Self.qualityStep * Double(steps), -Self.qualities.upperBound),
                           Self.qualities.upperBound)
    }
}
