/// Paints the pen's strokes into a picture of 32-bit pixels (BGRA in memory, alpha premultiplied:
/// the ink opaque, every other pixel left as it is): what a Wayland overlay shows, where no
/// server draws lines for its clients.
///
/// A line is the pen's round nib stamped at every pixel along it, so its ends and joins are round,
/// as X draws them. Writes only within the picture.
public struct PenCanvas {
    private let pixels: UnsafeMutablePointer<UInt32>
    public let size: PixelSize
    /// Pixels from one row to the next.
    private let rowPixels: Int
    /// The nib's pixels, around its centre: a disc as wide as the pen's line.
    private static let nib: [(x: Int, y: Int)] = {
        let radius = Double(PenDrawing.lineWidth) / 2
        let reach = Int(radius.rounded(.up))
        return (-reach...reach).flatMap { y in (-reach...reach).map { x in (x: x, y: y) } }
            .filter { Double($0.x * $0.x + $0.y * $0.y) <= radius * radius }
    }()

    /// - Parameter rowPixels: pixels from one row to the next, at least `size.width`.
    public init(pixels: UnsafeMutablePointer<UInt32>, size: PixelSize, rowPixels: Int) {
        self.pixels = pixels
        self.size = size
        self.rowPixels = max(rowPixels, size.width)
    }

    /// Makes every pixel clear (transparent).
    public func clear() {
        pixels.update(repeating: 0, count: rowPixels * size.height)
    }

    /// Paints `segments` in `ink`.
    /// - Returns: the box of the pixels it may have changed, within the picture; `nil` when none.
    @discardableResult
    public func paint(_ segments: [PenProgress.Segment], ink: PenDrawing.Ink) -> PixelRect? {
        let colour = ink.pixel
        let reach = (PenDrawing.lineWidth + 1) / 2
        var box: PixelRect?
        for (from, to) in segments {
            let steps = max(abs(to.x - from.x), abs(to.y - from.y))
            for step in 0...steps {
                let x = steps == 0 ? from.x : from.x + ((to.x - from.x) * step + steps / 2) / steps
                let y = steps == 0 ? from.y : from.y + ((to.y - from.y) * step + steps / 2) / steps
                stamp(x: x, y: y, colour: colour)
            }
            let line = PixelRect(x: min(from.x, to.x) - reach, y: min(from.y, to.y) - reach,
                                 width: abs(to.x - from.x) + 2 * reach + 1, height: abs(to.y - from.y) + 2 * reach + 1)
            box = box?.union(line) ?? line
        }
        return box?.intersection(PixelRect(x: 0, y: 0, size: size))
    }

    private func stamp(x: Int, y: Int, colour: UInt32) {
        for offset in Self.nib {
            let (column, row) = (x + offset.x, y + offset.y)
            guard column >= 0, column < size.width, row >= 0, row < size.height else { continue }
            pixels[row * rowPixels + column] = colour
        }
    }
}
