import ArgumentParser
import PodiumCore

/// The encoded picture's size.
struct ScaleOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Encode at exactly this size (default: the captured size).", valueName: "WxH"),
            transform: parsed(PixelSize.init(parsing:)))
    var size: PixelSize?

    @Option(name: .customLong("max-size"),
            help: ArgumentHelp("Shrink so the longest side is at most N pixels, aspect kept.", valueName: "N"))
    var maxSize: Int?

    @Option(help: ArgumentHelp("Multiply both sides by F (0.5 halves them).", valueName: "F"))
    var scale: Double?

    @Option(name: .customLong("scale-filter"),
            help: "The filter used to resize: box averages (libyuv), the others are libswscale's.")
    var scaleFilter: ScaleFilter = .box

    var request: ScaleRequest {
        if let size { return .size(size) }
        if let maxSize { return .longestSide(maxSize) }
        if let scale { return .factor(scale) }
        return .source
    }

    func validate() throws {
        if [size != nil, maxSize != nil, scale != nil].filter({ $0 }).count > 1 {
            throw ValidationError("pass only one of --size, --max-size and --scale")
        }
        if let maxSize, !(2...PixelSize.maximumSide).contains(maxSize) {
            throw ValidationError("--max-size '\(maxSize)' must be from 2 to \(PixelSize.maximumSide)")
        }
        if let scale, !(scale > 0 && scale <= 8) {
            throw ValidationError("--scale '\(scale)' must be above 0 and at most 8")
        }
    }
}
