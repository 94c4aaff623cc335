/// A small window in a corner of the target monitor (`--pip`), which the presenter can drag
/// and resize; its sides keep the picture's aspect ratio.
public struct PictureInPicture: Hashable, Sendable {
    public enum Corner: String, CaseIterable, Hashable, Sendable {
        case topLeft = "top-left"
        case topRight = "top-right"
        case bottomLeft = "bottom-left"
        case bottomRight = "bottom-right"
    }

    /// The smallest side a picture-in-picture window may have.
    public static let minimumSide = 64

    public var corner: Corner
    /// `--pip-size`; by default a quarter of the monitor's width, the picture's aspect.
    public var size: PixelSize?

    public init(corner: Corner, size: PixelSize?) {
        self.corner = corner
        self.size = size
    }

    /// Space between the window and the monitor's edges.
    public static func margin(on monitor: PixelRect) -> Int {
        max(8, min(monitor.width, monitor.height) / 40)
    }

    /// Checks `--pip-size`, against the monitor it goes on when that is known.
    /// - Returns: why the size cannot be honoured, or `nil` when it can.
    public func sizeProblem(on monitor: PixelRect?) -> String? {
        guard let size else { return nil }
        if size.width < Self.minimumSide || size.height < Self.minimumSide {
            return "is smaller than \(Self.minimumSide)x\(Self.minimumSide)"
        }
        if let monitor, size.width > monitor.width || size.height > monitor.height {
            return "is larger than the \(monitor.size) monitor"
        }
        return nil
    }

    /// The window's rectangle in screen coordinates, for a `picture` of that size.
    public func frame(on monitor: PixelRect, picture: PixelSize) -> PixelRect {
        let margin = Self.margin(on: monitor)
        // A size given for a larger monitor than the one that appeared shrinks to fit it.
        let windowSize = size.map { PixelSize(width: min($0.width, monitor.width),
                                              height: min($0.height, monitor.height)) }
            ?? Self.clamped(width: monitor.width / 4, aspect: picture, within: monitor.size)
        let x = corner == .topLeft || corner == .bottomLeft
            ? monitor.x + margin : monitor.maxX - margin - windowSize.width
        let y = corner == .topLeft || corner == .topRight
            ? monitor.y + margin : monitor.maxY - margin - windowSize.height
        return PixelRect(x: x, y: y, size: windowSize)
    }

    /// The size a resize drag asks for: `width` wide, the height from the picture's aspect,
    /// no side below the minimum, and the whole inside `bounds`.
    public static func clamped(width: Int, aspect picture: PixelSize, within bounds: PixelSize) -> PixelSize {
        let ratio = Double(picture.width) / Double(picture.height)
        // The widths at which each limit is reached, for this aspect.
        let smallest = max(Double(minimumSide), Double(minimumSide) * ratio)
        let largest = min(Double(bounds.width), Double(bounds.height) * ratio)
        let chosen = min(max(Double(width), smallest), max(smallest, largest))
        return PixelSize(width: Int(chosen.rounded()), height: Int((chosen / ratio).rounded()))
    }
}
