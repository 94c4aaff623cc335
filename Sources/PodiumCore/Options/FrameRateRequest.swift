/// `--fps`: a rate to start at (`30`), the bounds a run keeps to (`5-60`: it starts at the top),
/// or `auto`: Podium finds the highest rate it keeps every frame at, within `--max-cpu` if given.
public struct FrameRateRequest: Hashable, Sendable, CustomStringConvertible {
    /// The rate capture starts at.
    public var start: FrameRate
    /// What keys, the control socket and the budget may change it to.
    public var bounds: ClosedRange<Int>
    /// `auto`: the rate is Podium's to choose, within the bounds.
    public var isAuto: Bool

    /// `auto` chooses among these, starting at the default rate.
    public static let autoBounds = 5...60

    public init(start: FrameRate, bounds: ClosedRange<Int> = FrameRate.range, isAuto: Bool = false) {
        self.start = start
        self.bounds = bounds
        self.isAuto = isAuto
    }

    /// Reads `30`, `5-60` or `auto`.
    public init(parsing text: String) throws(OptionParseError) {
        if text == "auto" {
            self.init(start: FrameRate(30), bounds: Self.autoBounds, isAuto: true)
            return
        }
        let ends = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard ends.count == 2 else {
            guard Int(text) != nil else {
                throw OptionParseError("expected frames per second (30), a range (5-60) or auto")
            }
            self.init(start: try FrameRate(parsing: text))
            return
        }
        let low = try FrameRate(parsing: String(ends[0]))
        let high = try FrameRate(parsing: String(ends[1]))
        guard low.framesPerSecond < high.framesPerSecond else {
            throw OptionParseError("a range goes from the lower rate to the higher, such as 5-60")
        }
        self.init(start: high, bounds: low.framesPerSecond...high.framesPerSecond)
    }

    public var description: String {
        if isAuto { return "auto" }
        return bounds == FrameRate.range ? "\(start)" : "\(bounds.lowerBound)-\(bounds.upperBound)"
    }
}
