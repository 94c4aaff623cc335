import ArgumentParser
import Foundation

/// What the commands that list a display's parts take (`displays`, `windows`): the display, and
/// JSON or text.
struct ListingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The X display (default: $DISPLAY).", valueName: ":N"))
    var display: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    /// Prints `value` as indented JSON with sorted keys, the same for every listing.
    func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        Console.output(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
