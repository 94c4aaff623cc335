/// A size in bytes as the user writes it: `500M`, `2G`, `1.5G`, `64K` (binary units: `G` is 2³⁰
/// bytes).
public struct ByteSize: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var bytes: Int64

    public init(bytes: Int64) { self.bytes = bytes }

    /// - Parameter least: the smallest size taken, in bytes.
    public init(parsing text: String, least: Int64) throws(OptionParseError) {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Double(text.dropLast()), count.isFinite,
              count > 0, count * Double(unit) >= Double(least), count * Double(unit) < 0x1p62 else {
            throw OptionParseError("expected a size of \(ByteSize(bytes: least)) or more, such as 500M or 2G")
        }
        bytes = Int64(count * Double(unit))
    }

    /// Whether `text` is written as a size (ends in a unit) rather than something else.
    public static func looksLikeOne(_ text: String) -> Bool { text.last.map { "KMGT".contains($0) } ?? false }

    /// `2G`, `500M`, or in kibibytes when no larger unit divides it.
    public var description: String {
        for (unit, scale) in [("T", Int64(1) << 40), ("G", 1 << 30), ("M", 1 << 20)] where bytes % scale == 0 {
            return "\(bytes / scale)\(unit)"
        }
        return "\(bytes >> 10)K"
    }

    public static func < (lhs: ByteSize, rhs: ByteSize) -> Bool { lhs.bytes < rhs.bytes }
}
