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
extension PictureInPicture.Corner: ExpressibleByArgument {}
extension SceneKind: ExpressibleByArgument {}

/// Options whose value may be left out, and the value they then take: `--pip` alone is
/// `--pip bottom-right`. ArgumentParser has no optional option values, so the words are
/// completed before it reads them.
func completingOptionalValues(_ arguments: [String]) -> [String] {
    let defaults = ["--pip": PictureInPicture.Corner.bottomRight.rawValue]
    var completed: [String] = []
    for (index, argument) in arguments.enumerated() {
        let next = arguments.indices.contains(index + 1) ? arguments[index + 1] : nil
        if let value = defaults[argument], next == nil || next!.hasPrefix("-") {
            completed.append("\(argument)=\(value)")
        } else {
            completed.append(argument)
        }
    }
    return completed
}
