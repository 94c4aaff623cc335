import ArgumentParser
import PodiumCore

/// Reads `--split`, `--split-min` and `--split-max`.
private let splitShare = parsed { text throws(OptionParseError) in
    try Layout.share(parsing: text, within: Layout.splitLimits)
}

/// How two sources (`--source` twice) share the picture; keys change it as the run goes.
struct LayoutOptions: ParsableArguments {
    @Option(help: ArgumentHelp("How two sources share the picture: side by side, the second over the first in a "
                               + "corner, or one alone (default: beside; 'l' changes it).", valueName: "layout"))
    var layout: Layout.Mode?

    @Option(help: ArgumentHelp("beside: the primary's share of the width (default: 0.6; ']' and '[' move it).",
                               valueName: "SHARE"),
            transform: splitShare)
    var split: Double?

    @Option(name: .customLong("split-min"), help: ArgumentHelp("The least the split may go to (default: 0.2).",
                                                               valueName: "SHARE"),
            transform: splitShare)
    var splitMin: Double?

    @Option(name: .customLong("split-max"), help: ArgumentHelp("The most the split may go to (default: 0.8).",
                                                               valueName: "SHARE"),
            transform: splitShare)
    var splitMax: Double?

    @Option(help: ArgumentHelp("over: the corner of the second source (default: top-right).", valueName: "corner"))
    var over: PictureInPicture.Corner?

    @Option(name: .customLong("over-size"),
            help: ArgumentHelp("over: the second source's width as a share of the picture's, 10% to 50% "
                               + "(default: 25%; ']' and '[' change it).", valueName: "SHARE"),
            transform: parsed { text throws(OptionParseError) in
                try Layout.share(parsing: text, within: Layout.overSizeRange)
            })
    var overSize: Double?

    @Option(name: .customLong("source-fit"),
            help: ArgumentHelp("How each source fills its part of the picture, in the order of the sources: "
                               + "contain, cover, stretch, none or integer (default: contain).", valueName: "fit"))
    var sourceFits: [FitMode] = []

    /// The first flag given, to name in a refusal, or `nil` when none is.
    var firstGiven: String? {
        let given: [(String, Bool)] = [("--layout", layout != nil), ("--split", split != nil),
                                       ("--split-min", splitMin != nil), ("--split-max", splitMax != nil),
                                       ("--over", over != nil), ("--over-size", overSize != nil),
                                       ("--source-fit", !sourceFits.isEmpty)]
        return given.first(where: \.1)?.0
    }

    func validate() throws {
        if sourceFits.count > 2 {
            throw ValidationError("--source-fit can be given twice at most, once for each source")
        }
        let range = (splitMin ?? 0.2)...max(splitMin ?? 0.2, splitMax ?? 0.8)
        if let splitMin, let splitMax, splitMin > splitMax {
            throw ValidationError("--split-min \(splitMin) is above --split-max \(splitMax)")
        }
        if let split, !range.contains(split) {
            throw ValidationError("--split \(split) is outside --split-min \(range.lowerBound) and --split-max "
                                  + "\(range.upperBound)")
        }
    }

    /// The layout asked for; the split is 0.6 unless given, held within its range.
    var chosen: Layout {
        let range = (splitMin ?? 0.2)...max(splitMin ?? 0.2, splitMax ?? 0.8)
        return Layout(mode: layout ?? .beside, split: split ?? min(max(0.6, range.lowerBound), range.upperBound),
                      splitRange: range, corner: over ?? .topRight, overSize: overSize ?? 0.25,
                      fits: sourceFits + Array(repeating: .contain, count: max(0, 2 - sourceFits.count)))
    }
}
