/// An opaque colour (`--background`): `black`, `#RRGGBB` or a few names.
public struct RGBColor: Hashable, Sendable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    static let names: [String: RGBColor] = [
        "black": .init(red: 0, green: 0, blue: 0), "white": .init(red: 255, green: 255, blue: 255),
        "gray": .init(red: 128, green: 128, blue: 128), "red": .init(red: 255, green: 0, blue: 0),
        "green": .init(red: 0, green: 128, blue: 0), "blue": .init(red: 0, green: 0, blue: 255),
        "yellow": .init(red: 255, green: 255, blue: 0),
    ]

    public init(parsing text: String) throws(OptionParseError) {
        if let named = Self.names[text.lowercased()] {
            self = named
            return
        }
        let hex = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        guard hex.count == 6, let value = UInt32(hex, radix: 16) else {
            throw OptionParseError("expected #RRGGBB or one of " + Self.names.keys.sorted().joined(separator: ", "))
        }
        self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// The colour as one 32-bit BGRA pixel (as X stores 24-bit TrueColor).
    public var pixel: UInt32 { UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue) }

    /// Perceived lightness from 0 to 255 (BT.601 weights).
    public var brightness: Int { (77 * Int(red) + 150 * Int(green) + 29 * Int(blue)) >> 8 }

    /// Reads a 32-bit BGRA pixel; the top byte is ignored.
    public init(pixel: UInt32) {
        self.init(red: UInt8(pixel >> 16 & 0xFF), green: UInt8(pixel >> 8 & 0xFF), blue: UInt8(pixel & 0xFF))
    }

    /// Whether every channel is within `tolerance` of `other`'s (scaling and chroma subsampling
    /// move colours a little).
    public func isNear(_ other: RGBColor, tolerance: Int) -> Bool {
        abs(Int(red) - Int(other.red)) <= tolerance && abs(Int(green) - Int(other.green)) <= tolerance
            && abs(Int(blue) - Int(other.blue)) <= tolerance
    }

    public var description: String {
        "#" + [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
