/// One step of a benchmark's sweep: a frame rate, or as fast as it goes.
public enum BenchRate: Hashable, Sendable, CustomStringConvertible {
    case fps(Int)
    /// Every frame grabbed back to back, changed or not: the pipeline's ceiling.
    case max

    /// The default sweep.
    public static let defaultSweep: [BenchRate] = [.fps(5), .fps(10), .fps(15), .fps(30), .fps(60), .fps(120), .max]

    /// Reads `30` or `max`.
    public init(parsing text: String) throws(OptionParseError) {
        if text == "max" {
            self = .max
            return
        }
        self = .fps(try FrameRate(parsing: text).framesPerSecond)
    }

    /// Reads a comma-separated sweep such as `5,15,30,max`.
    public static func sweep(parsing text: String) throws(OptionParseError) -> [BenchRate] {
        var rates: [BenchRate] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let rate: BenchRate
            do {
                rate = try BenchRate(parsing: String(part.filter { $0 != " " }))
            } catch {
                throw OptionParseError("'\(part)' is not a frame rate from \(FrameRate.range.lowerBound) to "
                                       + "\(FrameRate.range.upperBound) or max")
            }
            guard !rates.contains(rate) else { throw OptionParseError("\(rate) is given twice") }
            rates.append(rate)
        }
        return rates
    }

    /// The rate, or `nil` for `max`.
    public var framesPerSecond: Int? {
        if case .fps(let value) = self { value } else { nil }
    }

    public var description: String {
        switch self {
        case .fps(let value): "\(value)"
        case .max: "max"
        }
    }
}
