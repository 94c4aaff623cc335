/// Where the windows to mask are in a source's pictures now, as the desktop says: sway's IPC for
/// a Wayland output. Asked on the capture thread at each frame handed on.
public protocol WindowAreas {
    /// The rectangles to paint black, in the picture's pixels, in the same order from one call
    /// to the next (a window's place in the list is its own while it stays).
    /// - Throws: when the desktop cannot be asked any more: no frame may go out unmasked.
    mutating func areas() throws(PodiumError) -> [PixelRect]
}

/// `--mask-window` over a source whose grabber does not paint masks itself: each frame is
/// painted black where the desktop says the masked windows are, in place (black on black again
/// is the same picture, so a frame handed on twice is right).
///
/// The desktop is asked after the frame is taken, so its answer is never older than the picture.
/// A window that moved between two answers may have been anywhere between its two places when
/// the picture was taken: that frame is also painted over its old place and the box that spans
/// both, on a copy, so that the source's picture, handed on again while the screen is still,
/// shows the old place as it is. Made on the capture thread and used there alone.
public final class MaskedCapture: FrameGrabber {
    private var source: any FrameGrabber
    private var windows: any WindowAreas
    private var copies: FrameCopies
    /// The areas the desktop gave last, and what the last frame handed on had painted.
    private var lastAreas: [PixelRect] = []
    private var lastPainted: [PixelRect] = []
    /// The masks changed while the picture did not: the next slot hands the picture on again.
    private var repaintPending = false

    /// - Parameter bufferCount: frames that may be in flight at once downstream.
    public init(source: any FrameGrabber, windows: any WindowAreas, bufferCount: Int) {
        self.source = source
        self.windows = windows
        copies = FrameCopies(bufferCount: bufferCount)
    }

    public var description: String { source.description }
    public var pointer: PointerReport? { source.pointer }

    public func capture(sequence: UInt64, time: UInt64, slotTime: UInt64, evenIfUnchanged: Bool)
        throws(PodiumError) -> CaptureOutcome {
        let outcome = try source.capture(sequence: sequence, time: time, slotTime: slotTime,
                                         evenIfUnchanged: evenIfUnchanged || repaintPending)
        let areas = try windows.areas()
        var passing: [PixelRect] = []
        if areas != lastAreas {
            passing = lastAreas
            if areas.count == lastAreas.count { passing += zip(areas, lastAreas).map { $0.union($1) } }
        }
        lastAreas = areas
        let painting = areas + passing
        guard case .frame(var frame) = outcome else {
            repaintPending = repaintPending || painting != lastPainted
            return outcome
        }
        repaintPending = false
        let whole = PixelRect(x: 0, y: 0, size: frame.size)
        PrivacyMasks.paint(areas, into: frame, showing: whole)
        if !passing.isEmpty {
            let copy = copies.copy(of: frame)
            frame.buffer.share(with: 0)
            guard var copy else { return .busy }
            PrivacyMasks.paint(passing, into: copy, showing: whole)
            copy.changedRows = nil
            frame = copy
        } else if painting != lastPainted, var changed = frame.changedRows {
            for rect in painting + lastPainted {
                guard let visible = rect.intersection(whole) else { continue }
                changed.insert(visible.y..<visible.maxY)
            }
            frame.changedRows = changed
        }
        lastPainted = painting
        return .frame(frame)
    }
}
