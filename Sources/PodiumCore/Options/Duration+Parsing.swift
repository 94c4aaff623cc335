extension Duration {
    /// Reads a positive span such as `10s`, `500ms`, `1.5s`, `2m`, `1h` or a plain number of seconds.
    public init(parsing text: String) throws(OptionParseError) {
        let units: [(suffix: String, seconds: Double)] = [("ms", 1e-3), ("us", 1e-6), ("s", 1), ("m", 60), ("h", 3600)]
        let trimmed = text.lowercased()
        var number = Substring(trimmed)
        var scale = 1.0
        for unit in units where trimmed.hasSuffix(unit.suffix) {
            number = number.dropLast(unit.suffix.count)
            scale = unit.seconds
            break
        }
        guard let value = Double(number), value.isFinite, !number.contains("e") else {
            throw OptionParseError("expected a duration such as 10s, 500ms or 2m")
        }
        let seconds = value * scale
        guard seconds > 0 else { throw OptionParseError("must be longer than zero") }
        guard seconds <= 366 * 86_400 else { throw OptionParseError("must be at most a year") }
        self = .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    /// The span in seconds as a floating-point number.
    public var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }

    /// The span in whole nanoseconds.
    public var nanoseconds: Int64 {
        let parts = components
        return parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000
    }
}
