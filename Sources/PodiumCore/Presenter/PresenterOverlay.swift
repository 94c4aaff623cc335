/// Draws the presenter's tools over the frames of a source whose grabber does not (a PipeWire
/// stream, the portal's, a composition of them), from where the source says the pointer is: the
/// pointer's picture when the source sends it apart, the highlight under it, the zoom around it.
///
/// A frame drawn on is a copy, of the part the zoom shows or of all of it, in a buffer of the
/// overlay's own: the source's buffers keep the picture as it was taken, which a source hands out
/// again when nothing changed. With nothing to draw, frames are handed through untouched.
/// Made on the capture thread and used there alone.
public final class PresenterOverlay: FrameGrabber {
    /// What a frame handed on shows besides the source's picture; a change sends a frame.
    private struct Look: Equatable {
        var pointer: PointerReport?
        var highlighting = false
        var zoom = 1
        var cursor = false
    }

    private var source: any FrameGrabber
    private let presenter: PresenterTools
    private let drawsCursor: Bool
    private var copies: FrameCopies
    /// The highlight's drawing, made when it is first turned on.
    private var marks: PointerMarks?
    /// Where the pointer was last said to be: the zoom stays there while it is hidden.
    private var lastPosition: (x: Int, y: Int)?
    private var lastLook = Look()
    /// The part of the source's picture the last frame drawn on showed, and its rows drawn on:
    /// while the part stays, a frame's changed rows are the source's and those.
    private var lastView: PixelRect?
    private var lastDrawnRows = RowBands()

    /// - Parameters:
    ///   - drawsCursor: the pointer's picture is drawn where the source sends it apart.
    ///   - bufferCount: frames that may be in flight at once downstream.
    public init(source: any FrameGrabber, presenter: PresenterTools, drawsCursor: Bool, bufferCount: Int) {
        self.source = source
        self.presenter = presenter
        self.drawsCursor = drawsCursor
        copies = FrameCopies(bufferCount: bufferCount)
    }

    public var description: String { source.description }

    /// The pointer in the source's coordinates: a zoomed frame is cut from them.
    public var pointer: PointerReport? { source.pointer }

    public func capture(sequence: UInt64, time: UInt64, slotTime: UInt64, evenIfUnchanged: Bool)
        throws(PodiumError) -> CaptureOutcome {
        let report = source.pointer
        if let report { lastPosition = (report.x, report.y) }
        var look = Look(highlighting: presenter.isHighlighting && report != nil,
                        zoom: lastPosition == nil ? 1 : presenter.zoom,
                        cursor: drawsCursor && report?.cursor != nil)
        let draws = look.highlighting || look.zoom > 1 || look.cursor
        if draws { look.pointer = report }
        let changed = look != lastLook
        let outcome = try source.capture(sequence: sequence, time: time, slotTime: slotTime,
                                         evenIfUnchanged: evenIfUnchanged || changed)
        guard case .frame(var frame) = outcome else { return outcome }
        lastLook = look
        guard draws else {
            // The frame before had something drawn on it that this one has not.
            if changed { frame.changedRows = nil }
            lastView = nil
            return .frame(frame)
        }
        let whole = PixelRect(x: 0, y: 0, size: frame.size)
        let view = lastPosition.map { ZoomView.view(of: whole, factor: look.zoom, around: $0) } ?? whole
        let copy = copies.copy(of: frame, area: view)
        frame.buffer.share(with: 0)
        guard var drawn = copy else {
            lastView = nil
            return .busy
        }
        var drawnRows = RowBands()
        if let report {
            let at = (x: report.x - view.x, y: report.y - view.y)
            if look.highlighting {
                let marks = marks ?? PointerMarks(style: presenter.highlightStyle)
                self.marks = marks
                marks.draw(into: drawn, at: at, time: frame.captureTime).map { drawnRows.insert($0) }
            }
            if look.cursor, let cursor = report.cursor {
                cursor.draw(into: drawn, x: at.x - cursor.hotspotX, y: at.y - cursor.hotspotY)
                    .map { drawnRows.insert($0) }
            }
        }
        if view == lastView, let sourceRows = frame.changedRows {
            var rows = lastDrawnRows
            rows.formUnion(drawnRows)
            for index in 0..<sourceRows.count {
                let band = sourceRows[index]
                let (top, bottom) = (max(0, band.lowerBound - view.y), min(view.height, band.upperBound - view.y))
                if top < bottom { rows.insert(top..<bottom) }
            }
            drawn.changedRows = rows
        }
        (lastView, lastDrawnRows) = (view, drawnRows)
        return .frame(drawn)
    }
}
