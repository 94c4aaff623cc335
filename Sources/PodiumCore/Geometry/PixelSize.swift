/// A width and height in pixels.
public struct PixelSize: Hashable, Sendable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Reads `WIDTHxHEIGHT`, both positive, such as `1280x720`.
    public init(parsing text: String) throws(OptionParseError) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else {
            throw OptionParseError("expected WIDTHxHEIGHT, such as 1280x720")
        }
        guard width > 0, height > 0 else { throw OptionParseError("width and height must be positive") }
        guard width <= Self.maximumSide, height <= Self.maximumSide else {
            throw OptionParseError("sides above \(Self.maximumSide) pixels are not supported")
        }
        self.init(width: width, height: height)
    }

    /// The largest side any stage accepts; encoders and X itself stop well before.
    public static let maximumSide = 16384

    public var description: String { "\(width)x\(height)" }
    public var area: Int { width * height }
    public var isEven: Bool { width % 2 == 0 && height % 2 == 0 }

    /// Each odd side rounded to the nearest even value (up from 1): 4:2:0 chroma needs even sides.
    public var roundedToEven: PixelSize {
        func even(_ side: Int) -> Int { side % 2 == 0 ? side : (side == 1 ? 2 : side - 1) }
        return PixelSize(width: even(width), height: even(height))
    }
}
