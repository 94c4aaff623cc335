/// A bit rate in bits per second.
public struct Bitrate: Hashable, Sendable, Codable, CustomStringConvertible {
    public var bitsPerSecond: Int

    public init(bitsPerSecond: Int) { self.bitsPerSecond = bitsPerSecond }

    /// Reads `800k`, `6M`, `2.5M`, `1G` or plain bits per second (`4000000`); k, M and G are powers of 1000.
    public init(parsing text: String) throws(OptionParseError) {
        let multipliers: [Character: Double] = ["k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9]
        var digits = Substring(text)
        var multiplier = 1.0
        if let last = digits.last, let scale = multipliers[last] {
            multiplier = scale
            digits = digits.dropLast()
        }
        guard let value = Double(digits), value.isFinite, !digits.contains("e"), !digits.contains("E") else {
            throw OptionParseError("expected a rate such as 800k or 6M")
        }
        let bits = value * multiplier
        guard bits >= 1_000 else { throw OptionParseError("must be at least 1k") }
        guard bits <= 10e9 else { throw OptionParseError("must be at most 10G") }
        self.init(bitsPerSecond: Int(bits.rounded()))
    }

    /// This rate times `factor`, to the bit, at least 1k.
    public func scaled(by factor: Double) -> Bitrate {
        Bitrate(bitsPerSecond: max(1_000, Int((Double(bitsPerSecond) * factor).rounded())))
    }

    public var megabitsPerSecond: Double { Double(bitsPerSecond) / 1e6 }

    public var description: String {
        if bitsPerSecond % 1_000_000 == 0 { return "\(bitsPerSecond / 1_000_000)M" }
        if bitsPerSecond > 1_000_000 && bitsPerSecond % 100_000 == 0 {
            return "\(bitsPerSecond / 1_000_000).\(bitsPerSecond % 1_000_000 / 100_000)M"
        }
        if bitsPerSecond % 1_000 == 0 { return "\(bitsPerSecond / 1_000)k" }
        return "\(bitsPerSecond)"
    }
}
