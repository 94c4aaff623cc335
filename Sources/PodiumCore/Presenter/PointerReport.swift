/// Where a source says the pointer is in its pictures, for the presenter's tools drawn over
/// them (an X11 grabber's query, a PipeWire stream's cursor metadata), and the pointer's picture.
public struct PointerReport: Sendable, Equatable {
    /// In the source's pixels: where the pointer points.
    public var x: Int
    public var y: Int
    /// The pointer's picture; `nil` when the source sends none.
    public var cursor: CursorImage?
    /// Whether the source's pictures have `cursor` in already (X11's grabbers draw it): it is
    /// drawn again only over a highlight. Otherwise it is drawn where the run shows the cursor.
    public var cursorInPicture: Bool
    /// The clicks (buttons 1 to 3 going down) the source saw so far: a new one spreads a ring
    /// around a highlighted pointer. Sources that do not see clicks say 0.
    public var clicks: UInt64

    public init(x: Int, y: Int, cursor: CursorImage? = nil, cursorInPicture: Bool = false, clicks: UInt64 = 0) {
        self.x = x
        self.y = y
        self.cursor = cursor
        self.cursorInPicture = cursorInPicture
        self.clicks = clicks
    }

    public static func == (lhs: PointerReport, rhs: PointerReport) -> Bool {
        lhs.x == rhs.x && lhs.y == rhs.y && lhs.cursor === rhs.cursor && lhs.cursorInPicture == rhs.cursorInPicture
            && lhs.clicks == rhs.clicks
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
