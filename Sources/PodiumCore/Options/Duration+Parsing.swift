extension Duration {
    /// Reads a positive span such as `10s`, `500ms`, `1.5s`, `2m`, `1h`, a plain number of seconds,
    /// or a clock time as ffmpeg takes it: `MM:SS`, `HH:MM:SS`, `HH:MM:SS.mmm`.
    public init(parsing text: String) throws(OptionParseError) {
        if text.contains(":") {
            self = try Self.clock(text)
            return
        }
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
            throw OptionParseError("expected a duration such as 10s, 500ms, 2m or 01:30:00")
        }
        self = try Self.checked(seconds: value * scale)
    }

    /// `MM:SS` or `HH:MM:SS`, seconds with a fraction if wanted; minutes and seconds below 60.
    private static func clock(_ text: String) throws(OptionParseError) -> Duration {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        let wholeFields = fields.dropLast()
        guard (2...3).contains(fields.count), wholeFields.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }),
              let last = fields.last, let seconds = Double(last), last.first?.isNumber == true,
              !last.contains("e"), seconds < 60, wholeFields.dropFirst().allSatisfy({ (Int($0) ?? 60) < 60 })
        else { throw OptionParseError("expected a duration such as 10s, 2m or 01:30:00") }
        let minutes = wholeFields.reduce(0.0) { $0 * 60 + (Double($1) ?? 0) }
        return try checked(seconds: minutes * 60 + seconds)
    }

    private static func checked(seconds: Double) throws(OptionParseError) -> Duration {
        guard seconds > 0 else { throw OptionParseError("must be longer than zero") }
        guard seconds <= 366 * 86_400 else { throw OptionParseError("must be at most a year") }
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
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
