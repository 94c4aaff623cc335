/// Who changed a setting of a running run.
public enum ChangeOrigin: String, Sendable, Codable {
    /// A key in the terminal Podium runs in.
    case key
    /// A key in the mirror window.
    case window
    /// A key held for the whole desktop (`--hotkeys`), pressed in any program.
    case globalKey = "global key"
    /// A request on the control socket (`podium control`).
    case control
    /// A button of the remote page (`--remote`), on a phone.
    case remote
    /// The budget (`--max-cpu`, `--fps auto`).
    case budget
    /// A WebRTC receiver's feedback, for its output's own encoder.
    case network
    /// A failure Podium got round: the GPU's encoder failed and software took over.
    case fault
}

/// One change made to a running run: said on one line (`fps 30 → 24, by key`) and written to
/// `--stats-json` as a record of its own (`"kind":"change"`), between the samples.
public struct RunChange: Sendable, Codable, Equatable {
    public var kind = "change"
    /// When it was made, on `MonotonicClock`, in nanoseconds.
    public var time: UInt64 = 0
    /// Seconds since the statistics began, as the samples count them.
    public var elapsed: Double
    /// What changed: `fps`, `bitrate`, `quality`, `picture`, `keyframe`, `layout`, `recording`.
    public var setting: String
    /// What it was, when that is a value.
    public var from: String?
    public var to: String
    public var by: ChangeOrigin
    /// Why the budget changed it (`cpu 0.62 of 0.50 cores`).
    public var reason: String?

    private enum CodingKeys: String, CodingKey {
        case kind, elapsed, setting, from, to, by, reason
    }

    public init(elapsed: Double = 0, setting: String, from: String? = nil, to: String, by: ChangeOrigin,
                reason: String? = nil) {
        self.elapsed = elapsed
        self.setting = setting
        self.from = from
        self.to = to
        self.by = by
        self.reason = reason
    }

    /// `fps 30 → 24, by key`, `keyframe requested, by control`, `fps 60 → 48, by the budget: cpu 0.61 of 0.50`.
    public var line: String {
        let what = from.map { "\(setting) \($0) → \(to)" } ?? "\(setting) \(to)"
        let who = switch by {
        case .budget: "the budget"
        case .network: "the network"
        case .fault: "a fault"
        default: by.rawValue
        }
        return "\(what), by \(who)" + (reason.map { ": \($0)" } ?? "")
    }
}
