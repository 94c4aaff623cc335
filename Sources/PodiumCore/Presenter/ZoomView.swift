/// The part of the captured area that a zoom shows: a `1/factor` of its width and height, centred
/// on the pointer, moved only as far as it must to stay inside the area.
public enum ZoomView {
    /// - Parameters:
    ///   - area: what is captured, in the coordinates the pointer is given in.
    ///   - pointer: where the pointer is; outside the area, the view keeps to the nearest edge.
    /// - Returns: the area itself for a factor of 1.
    public static func view(of area: PixelRect, factor: Int, around pointer: (x: Int, y: Int)) -> PixelRect {
        guard factor > 1 else { return area }
        // Even sides, as the encoders' 4:2:0 pictures want; as near the area's shape as they allow.
        let width = max(2, area.width / factor & ~1)
        let height = max(2, area.height / factor & ~1)
        let x = min(max(pointer.x - width / 2, area.x), area.maxX - width)
        let y = min(max(pointer.y - height / 2, area.y), area.maxY - height)
        return PixelRect(x: x, y: y, width: width, height: height)
    }
}
