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
extension AudioCodec: ExpressibleByArgument {}
extension ScaleFilter: ExpressibleByArgument {}
extension FitMode: ExpressibleByArgument {}
extension PictureInPicture.Corner: ExpressibleByArgument {}
extension Layout.Mode: ExpressibleByArgument {}
extension SceneKind: ExpressibleByArgument {}

/// The words as ArgumentParser should read them:
/// - options whose value may be left out get the value they then take: `--pip` alone is
///   `--pip bottom-right`, `--audio` alone `--audio desktop` (ArgumentParser has no optional option values);
/// - a negative number is joined to its option (`--fps -1` becomes `--fps=-1`): ArgumentParser
///   would take `-1` for a flag and report a missing value, instead of the option's own parser
///   naming the value it refuses.
func preparedArguments(_ arguments: [String]) -> [String] {
    let defaults = ["--pip": PictureInPicture.Corner.bottomRight.rawValue, "--audio": SoundRequest.desktop.description,
                    "--highlight-pointer": "default"]
    func isNegativeNumber(_ word: String) -> Bool {
        word.count > 1 && word.hasPrefix("-") && word.dropFirst().first.map { $0.isNumber || $0 == "." } == true
    }
    var prepared: [String] = []
    var index = arguments.startIndex
    while index < arguments.endIndex {
        let argument = arguments[index]
        let next = arguments.indices.contains(index + 1) ? arguments[index + 1] : nil
        index += 1
        if let value = defaults[argument], next?.hasPrefix("-") ?? true {
            prepared.append("\(argument)=\(value)")
        } else if argument.hasPrefix("--"), !argument.contains("="), let next, isNegativeNumber(next) {
            prepared.append("\(argument)=\(next)")
            index += 1
        } else {
            prepared.append(argument)
        }
    }
    return prepared
}
