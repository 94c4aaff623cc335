/// Why a flag's text could not be read; the CLI adds the flag's name and the value.
public struct OptionParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
