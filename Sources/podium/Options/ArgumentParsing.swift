public import ArgumentParser
public import PodiumCore

// Flag values are read by PodiumCore's parsers; a failure becomes ArgumentParser's usage error,
// which names the flag and the value ("The value 'abc' is invalid for '--fps <fps>': …").

/// Wraps a PodiumCore parser for `@Option(transform:)`, so the parser's reason reaches the message.
func parsed<T>(_ parse: @escaping @Sendable (String) throws(OptionParseError) -> T) -> @Sendable (String) throws -> T {
    { text in
        do {
            return try parse(text)
        } catch let error as OptionParseError {
            throw ValidationError(error.reason)
        }
    }
}

extension VideoCodec: ExpressibleByArgument {}
extension ScaleFilter: ExpressibleByArgument {}
extension FitMode: ExpressibleByArgument {}
