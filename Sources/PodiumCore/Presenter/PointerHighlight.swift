/// `--highlight-pointer[=COLOR[,RADIUS]]`: a translucent disc under the pointer, so a room can
/// find it, and a ring spreading from it at each click.
public struct PointerHighlight: Sendable, Equatable, CustomStringConvertible {
    public static let radii = 4...400
    public static let `default` = PointerHighlight(colour: RGBColor(red: 255, green: 255, blue: 0), radius: 40)
    /// How much of the disc's colour covers the picture, of 255: 40 %, the text under it readable.
    public static let opacity: UInt32 = 102

    public var colour: RGBColor
    /// In pixels of the captured picture.
    public var radius: Int

    public init(colour: RGBColor, radius: Int) {
        self.colour = colour
        self.radius = radius
    }

    /// Reads `COLOR[,RADIUS]`; an empty colour (`,60`) or `default` keeps the default one.
    public init(parsing text: String) throws(OptionParseError) {
        self = .default
        guard text != "default" else { return }
        let parts = text.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
        if let name = parts.first, !name.isEmpty { colour = try RGBColor(parsing: String(name)) }
        guard parts.count > 1 else { return }
        guard let radius = Int(parts[1]), Self.radii.contains(radius) else {
            throw OptionParseError("expected COLOR[,RADIUS] with a radius of \(Self.radii.lowerBound) to "
                                   + "\(Self.radii.upperBound) pixels, such as yellow,40")
        }
        self.radius = radius
    }

    /// `yellow disc of 40 px` said as `#ffff00, 40 px`.
    public var description: String { "\(colour), \(radius) px" }
}
