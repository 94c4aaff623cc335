/// A rectangle in a screen's pixel coordinates.
public struct PixelRect: Hashable, Sendable, Codable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var size: PixelSize

    public init(x: Int, y: Int, size: PixelSize) {
        self.x = x
        self.y = y
        self.size = size
    }

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.init(x: x, y: y, size: PixelSize(width: width, height: height))
    }

    /// Reads X11 geometry `WxH+X+Y` (offsets may be omitted: `WxH` is at 0,0).
    public init(parsing text: String) throws(OptionParseError) {
        let sizeEnd = text.firstIndex(of: "+") ?? text.endIndex
        let size = try PixelSize(parsing: String(text[..<sizeEnd]))
        var offsets: [Int] = []
        if sizeEnd < text.endIndex {
            let fields = text[text.index(after: sizeEnd)...].split(separator: "+", omittingEmptySubsequences: false)
            offsets = fields.compactMap { Int($0) }
            guard fields.count == 2, offsets.count == 2, offsets.allSatisfy({ $0 >= 0 }) else {
                throw OptionParseError("expected WIDTHxHEIGHT+X+Y, such as 1280x720+0+0")
            }
        }
        self.init(x: offsets.first ?? 0, y: offsets.last ?? 0, size: size)
    }

    public var width: Int { size.width }
    public var height: Int { size.height }
    public var maxX: Int { x + size.width }
    public var maxY: Int { y + size.height }
    public var description: String { "\(size)+\(x)+\(y)" }

    /// Whether the pixel at `x`, `y` is within.
    public func contains(x: Int, y: Int) -> Bool {
        x >= self.x && x < maxX && y >= self.y && y < maxY
    }

    /// Whether `other` lies wholly inside this rectangle.
    public func contains(_ other: PixelRect) -> Bool {
        other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
    }

    /// Whether the two rectangles share any pixel.
    public func intersects(_ other: PixelRect) -> Bool {
        x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
    }

    /// The smallest rectangle that holds both.
    public func union(_ other: PixelRect) -> PixelRect {
        let left = min(x, other.x)
        let top = min(y, other.y)
        return PixelRect(x: left, y: top, width: max(maxX, other.maxX) - left, height: max(maxY, other.maxY) - top)
    }

    /// The pixels both rectangles cover; `nil` when they share none. Either may lie partly or
    /// wholly outside the other, or have negative offsets.
    public func intersection(_ other: PixelRect) -> PixelRect? {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        guard left < right, top < bottom else { return nil }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// `other`, given in this rectangle's coordinates, moved to the coordinates this rectangle is in.
    public func offsetting(_ other: PixelRect) -> PixelRect {
        PixelRect(x: x + other.x, y: y + other.y, size: other.size)
    }
}
