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
    private let bufferCount: Int
    private var pool: FrameBufferPool?
    private var poolCapacity = 0
    /// The highlight's drawing, made when it is first turned on.
    private var marks: PointerMarks?
    /// Where the pointer was last said to be: the zoom stays there while it is hidden.
    private var lastPosition: (x: Int, y: Int)?
    private var lastLook = Look()

    /// - Parameters:
    ///   - drawsCursor: the pointer's picture is drawn where the source sends it apart.
    ///   - bufferCount: frames that may be in flight at once downstream.
    public init(source: any FrameGrabber, presenter: PresenterTools, drawsCursor: Bool, bufferCount: Int) {
        self.source = source
        self.presenter = presenter
        self.drawsCursor = drawsCursor
        self.bufferCount = bufferCount
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
            return .frame(frame)
        }
        let whole = PixelRect(x: 0, y: 0, size: frame.size)
        let view = lastPosition.map { ZoomView.view(of: whole, factor: look.zoom, around: $0) } ?? whole
        guard let buffer = buffer(holding: view.size) else {
            frame.buffer.share(with: 0)
            return .busy
        }
        let rowBytes = view.width * 4
        for row in 0..<view.height {
            (buffer.bytes + row * rowBytes).copyMemory(
                from: frame.buffer.bytes + (view.y + row) * frame.bytesPerRow + view.x * 4, byteCount: rowBytes)
        }
        frame.buffer.share(with: 0)
        var drawn = CapturedFrame(buffer: buffer, size: view.size, bytesPerRow: rowBytes,
                                  captureTime: frame.captureTime, slotTime: frame.slotTime, sequence: frame.sequence)
        drawn.interval = frame.interval
        if let report {
            let at = (x: report.x - view.x, y: report.y - view.y)
            if look.highlighting {
                let marks = marks ?? PointerMarks(style: presenter.highlightStyle)
                self.marks = marks
                _ = marks.draw(into: drawn, at: at, time: frame.captureTime)
            }
            if look.cursor, let cursor = report.cursor {
                cursor.draw(into: drawn, x: at.x - cursor.hotspotX, y: at.y - cursor.hotspotY)
            }
        }
        return .frame(drawn)
    }

    /// A free buffer of the overlay's own for a picture of `size`: new ones when the picture
    /// grew past them (those in flight go as they are released).
    private func buffer(holding size: PixelSize) -> FrameBuffer? {
        let bytes = size.area * 4
        if pool == nil || bytes > poolCapacity {
            pool = FrameBufferPool((0..<bufferCount).map { index in
                let storage = HeapStorage(capacity: bytes)
                return FrameBuffer(bytes: storage.bytes, capacity: bytes, index: index, storage: storage)
            })
            poolCapacity = bytes
        }
        return pool?.acquire()
    }
}
