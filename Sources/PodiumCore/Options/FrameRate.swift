/// A capture rate in whole frames per second.
public struct FrameRate: Hashable, Sendable, Codable, CustomStringConvertible {
    public static let range = 1...240
    public var framesPerSecond: Int

    public init(_ framesPerSecond: Int) { self.framesPerSecond = framesPerSecond }

    /// Reads a whole number from 1 to 240.
    public init(parsing text: String) throws(OptionParseError) {
        guard let value = Int(text) else { throw OptionParseError("expected a whole number of frames per second") }
        guard Self.range.contains(value) else {
            throw OptionParseError("must be from \(Self.range.lowerBound) to \(Self.range.upperBound)")
        }
        self.init(value)
    }

    /// The time between two frames, in nanoseconds.
    public var intervalNanoseconds: UInt64 { 1_000_000_000 / UInt64(framesPerSecond) }
    public var description: String { "\(framesPerSecond)" }
}
