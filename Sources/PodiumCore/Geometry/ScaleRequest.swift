/// How the user asked to size the encoded picture.
public enum ScaleRequest: Hashable, Sendable {
    /// The captured size.
    case source
    /// Exactly this size (the aspect ratio may change).
    case size(PixelSize)
    /// The longest side becomes this many pixels, aspect kept.
    case longestSide(Int)
    /// Both sides multiplied by this factor.
    case factor(Double)

    /// The output size for a source of `source` pixels, before rounding to even sides.
    public func exactSize(for source: PixelSize) -> PixelSize {
        switch self {
        case .source:
            return source
        case .size(let size):
            return size
        case .longestSide(let side):
            let longest = max(source.width, source.height)
            guard longest > side else { return source }
            let factor = Double(side) / Double(longest)
            return Self.scaled(source, by: factor)
        case .factor(let factor):
            return Self.scaled(source, by: factor)
        }
    }

    /// The size to encode: `exactSize(for:)` with odd sides rounded to even, and whether rounding happened.
    public func outputSize(for source: PixelSize) -> (size: PixelSize, rounded: Bool) {
        let exact = exactSize(for: source)
        let even = exact.roundedToEven
        return (even, even != exact)
    }

    private static func scaled(_ size: PixelSize, by factor: Double) -> PixelSize {
        PixelSize(
            width: max(1, Int((Double(size.width) * factor).rounded())),
            height: max(1, Int((Double(size.height) * factor).rounded()))
        )
    }
}
