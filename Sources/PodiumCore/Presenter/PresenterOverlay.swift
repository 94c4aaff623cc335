/// Draws the presenter's tools over any source's frames, from where the source says the
/// pointer is (`FrameGrabber.pointer`): the highlight under it with a ring at each click, the
/// zoom around it, and the pointer's picture when the source sends it apart (a PipeWire stream's
/// cursor metadata) or over the highlight. Every source has the tools the same way: X11's
/// grabbers, PipeWire's and the portal's, and a composition of them.
///
/// A frame drawn on is a copy, of the part the zoom shows or of all of it, in a buffer of the
/// overlay's own: the source's buffers keep the picture as it was taken, which a source hands out
/// again when nothing changed. A buffer that showed the same part before gets only the rows that
/// changed since and those drawn on copied again; a change outside the part shown sends nothing.
/// With nothing to draw, frames are handed through untouched.
/// Made on the capture thread and used there alone.
public final class PresenterOverlay: FrameGrabber {
    /// What a frame handed on shows besides the source's picture; a change sends a frame.
    private struct Look: Equatable {
        var pointer: PointerReport?
        var highlighting = false
        var zoom = 1
        var cursor = false
        /// A ring spreads: the picture changes at every slot, and once more when it is gone.
        var rippling = false
    }

    private var source: any FrameGrabber
    private let presenter: PresenterTools
    private let drawsCursor: Bool
    private var copies: FrameCopies
    /// The highlight's drawing, made when it is first turned on.
    private var marks: PointerMarks?
    /// Where the pointer was last said to be: the zoom stays there while it is hidden.
    private var lastPosition: (x: Int, y: Int)?
    /// The clicks the source had seen at the last frame.
    private var lastClicks: UInt64?
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
        copies = FrameCopies(bufferCount: bufferCount, followsSource: true)
    }

    public var description: String { source.description }

    /// The pointer in the source's coordinates: a zoomed frame is cut from them.
    public var pointer: PointerReport? { source.pointer }

    /// The source's wait, while nothing is drawn: a highlight or a zoom follows the pointer,
    /// which the picture's changes do not say. (A source that waits says its pointer's moves.)
    public func awaitChange(timeout: UInt64, or doorbell: Doorbell) -> Bool {
        guard lastLook == Look(), !presenter.isHighlighting, presenter.zoom == 1 else { return false }
        return source.awaitChange(timeout: timeout, or: doorbell)
    }

    public func capture(sequence: UInt64, time: UInt64, slotTime: UInt64, evenIfUnchanged: Bool)
        throws(PodiumError) -> CaptureOutcome {
        var outcome = try source.capture(sequence: sequence, time: time, slotTime: slotTime,
                                         evenIfUnchanged: evenIfUnchanged)
        // Where the pointer is as the source took its picture (X11 asks with a grab), when
        // something is drawn where it is.
        let report = presenter.isHighlighting || presenter.zoom > 1 || drawsCursor ? source.pointer : nil
        let look = look(of: report, at: time)
        // What is drawn changes: a new look, or a ring that spreads.
        let redrawn = look != lastLook || look.rippling
        switch outcome {
        case .unchanged where redrawn, .repainted where redrawn:
            // The pointer moved or a tool changed over a still picture: it goes out again.
            outcome = try source.capture(sequence: sequence, time: time, slotTime: slotTime, evenIfUnchanged: true)
        default:
            break
        }
        guard case .frame(var frame) = outcome else { return outcome }
        copies.sourceChanged(frame.changedRows)
        let draws = look.highlighting || look.zoom > 1 || look.cursor
        guard draws else {
            // The frame before had something drawn on it that this one has not.
            if look != lastLook { frame.changedRows = nil }
            (lastView, lastLook) = (nil, look)
            return .frame(frame)
        }
        let whole = PixelRect(x: 0, y: 0, size: frame.size)
        let view = lastPosition.map { ZoomView.view(of: whole, factor: look.zoom, around: $0) } ?? whole
        if !evenIfUnchanged, !redrawn, view == lastView, let rows = frame.changedRows,
           !rows.intersects(view.y..<view.maxY) {
            // What changed is outside the part shown (a zoom elsewhere): the picture is the last one.
            frame.buffer.share(with: 0)
            return .unchanged
        }
        lastLook = look
        let copy = copies.copy(of: frame, area: view)
        frame.buffer.share(with: 0)
        guard var drawn = copy else {
            lastView = nil
            return .busy
        }
        var drawnRows = RowBands()
        if let report {
            let at = (x: report.x - view.x, y: report.y - view.y)
            if look.highlighting, let marks {
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
        } else {
            drawn.changedRows = nil
        }
        copies.drewOn(drawnRows, of: drawn)
        (lastView, lastDrawnRows) = (view, drawnRows)
        return .frame(drawn)
    }

    /// What the frame at `time` shows besides the source's picture, with the pointer `report` says.
    private func look(of report: PointerReport?, at time: UInt64) -> Look {
        if let report { lastPosition = (report.x, report.y) }
        let highlighting = presenter.isHighlighting && report != nil
        if highlighting && marks == nil { marks = PointerMarks(style: presenter.highlightStyle) }
        if let clicks = report?.clicks {
            if highlighting, let lastClicks, clicks != lastClicks { marks?.clicked(at: time) }
            lastClicks = clicks
        }
        let cursorShown = report.map { $0.cursorInPicture ? highlighting : drawsCursor } ?? false
        var look = Look(highlighting: highlighting, zoom: lastPosition == nil ? 1 : presenter.zoom,
                        cursor: cursorShown && report?.cursor != nil,
                        rippling: highlighting && marks?.isRippling(at: time) == true)
        if look.highlighting || look.zoom > 1 || look.cursor { look.pointer = report }
        return look
    }
}
