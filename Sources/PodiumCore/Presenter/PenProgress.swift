/// What an overlay shows of the pen's drawing, so that a path that grows is drawn by its new
/// segments alone, and the whole drawing again only when something went or moved.
public struct PenProgress: Sendable {
    /// The drawing's rewrites, its strokes and the last one's points, as last shown.
    private var rewrites = -1
    private var strokes = 0
    private var points = 0

    public init() {}

    /// Whether `drawing` only grew since it was shown: `additions` draws it.
    public func onlyGrew(_ drawing: PenDrawing) -> Bool { drawing.rewrites == rewrites }

    /// What was added to `drawing` since it was shown (a path that grew, new strokes), by ink;
    /// counts it shown.
    public mutating func additions(in drawing: PenDrawing) -> [(ink: PenDrawing.Ink, segments: [Segment])] {
        var added: [(ink: PenDrawing.Ink, segments: [Segment])] = []
        for index in stride(from: max(0, strokes - 1), to: drawing.strokes.count, by: 1) {
            let stroke = drawing.strokes[index]
            let all = stroke.segments
            // A path drawn before goes on from its last point; a stroke new since is drawn whole.
            let drawn = index == strokes - 1 ? max(0, min(points - 1, all.count)) : 0
            if drawn < all.count { added.append((stroke.ink, Array(all[drawn...]))) }
        }
        shown(drawing)
        return added
    }

    /// Counts the whole of `drawing` shown.
    public mutating func shown(_ drawing: PenDrawing) {
        (rewrites, strokes, points) = (drawing.rewrites, drawing.strokes.count, drawing.strokes.last?.points.count ?? 0)
    }

    public typealias Segment = (PixelPoint, PixelPoint)
}
