/// Where a source says the pointer is in its pictures, for the presenter's tools drawn over
/// them (a PipeWire stream's cursor metadata); and the pointer's picture when the source leaves
/// it to be drawn.
public struct PointerReport: Sendable, Equatable {
    /// In the source's pixels: where the pointer points.
    public var x: Int
    public var y: Int
    /// The pointer's picture when the source sends it apart (not drawn in); `nil` when the
    /// pictures have it already, or the source sends none.
    public var cursor: CursorImage?

    public init(x: Int, y: Int, cursor: CursorImage? = nil) {
        self.x = x
        self.y = y
        self.cursor = cursor
    }

    public static func == (lhs: PointerReport, rhs: PointerReport) -> Bool {
        lhs.x == rhs.x && lhs.y == rhs.y && lhs.cursor === rhs.cursor
    }
}

/// A pointer's picture: premultiplied BGRA (the layout of a frame's pixels in memory), and the
/// hot spot in it that the pointer's position names. Made when the pointer's shape changes.
public final class CursorImage: Sendable {
    public let pixels: [UInt32]
    public let size: PixelSize
    public let hotspotX: Int
    public let hotspotY: Int

    /// - Returns: `nil` when `pixels` holds fewer than `size` needs.
    public init?(pixels: [UInt32], size: PixelSize, hotspotX: Int, hotspotY: Int) {
        guard size.width > 0, size.height > 0, pixels.count >= size.area else { return nil }
        self.pixels = pixels
        self.size = size
        self.hotspotX = hotspotX
        self.hotspotY = hotspotY
    }

    /// Blends the picture into `frame` with its top left corner at (`x`, `y`), clipped to `limit`
    /// (the frame's own rectangle when `nil`).
    /// - Returns: the frame's rows it drew on; `nil` when none.
    @discardableResult
    public func draw(into frame: CapturedFrame, x: Int, y: Int, within limit: PixelRect? = nil) -> Range<Int>? {
        let placed = PixelRect(x: x, y: y, size: size)
        let frameRect = PixelRect(x: 0, y: 0, size: frame.size)
        guard let visible = placed.intersection(limit?.intersection(frameRect) ?? frameRect) else { return nil }
        pixels.withUnsafeBufferPointer { source in
            for row in visible.y..<visible.maxY {
                let line = (frame.buffer.bytes + row * frame.bytesPerRow).assumingMemoryBound(to: UInt32.self)
                let sourceRow = (row - y) * size.width - x
                for column in visible.x..<visible.maxX {
                    line[column] = PixelBlend.over(source[sourceRow + column], line[column])
                }
            }
        }
        return visible.y..<visible.maxY
    }
}
