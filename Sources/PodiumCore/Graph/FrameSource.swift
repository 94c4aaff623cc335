/// Where a run's pictures come from: a screen, a window, a compositor of two sources.
///
/// Two kinds fit. A *pull* source is paced by the run: `PacedCapture` asks a `FrameGrabber` for a
/// picture at each slot of the frame-rate grid (an X11 screen). A *push* source is delivered to by
/// a library's own thread (a PipeWire stream) and conforms directly, placing each frame on the
/// grid with a `FrameGrid`.
public protocol FrameSource: Sendable {
    /// Runs the source on a thread the run gives it, until the run stops: opens what the source
    /// needs there (so nothing it opens leaves that thread), says so with `fanOut.opened`, waits
    /// for capture to start with `fanOut.waitForStart()`, then delivers frames with
    /// `fanOut.deliver` and, at the end, `fanOut.finish(at:)`.
    func run(into fanOut: FanOut)
}

/// Takes pictures when asked, for `PacedCapture`: an X11 screen, or a fake in tests.
///
/// Made on the capture thread and used there alone.
public protocol FrameGrabber {
    /// How it grabs, in a few words for the start message (`1920x1080+0+0 of :1 with MIT-SHM`).
    var description: String { get }
    /// Grabs the picture now, as frame `sequence`.
    /// - Parameters:
    ///   - time: when the grab is issued, on the run's clock: the frame's capture time.
    ///   - slotTime: the frame's place on the frame-rate grid (`CapturedFrame.slotTime`).
    ///   - evenIfUnchanged: grab even when nothing changed since the last frame.
    /// - Throws: when the source is gone for good (the X server closed the connection).
    mutating func capture(sequence: UInt64, time: UInt64, slotTime: UInt64, evenIfUnchanged: Bool)
        throws(PodiumError) -> CaptureOutcome
    /// Where the pointer is in its pictures now, for the presenter's tools drawn over them; `nil`
    /// when it does not say (or the pointer is hidden or outside).
    var pointer: PointerReport? { get }
    /// Waits, after a look that found nothing changed, until the picture may have changed,
    /// `doorbell` rings or `timeout` nanoseconds passed: a source that says when it changes (X11's
    /// Damage) then costs nothing while the screen rests, instead of a look at every slot. The
    /// pointer's moves count as changes, drawn in or said apart (`pointer`).
    /// - Returns: `false` at once when it cannot say (the loop looks at every slot).
    mutating func awaitChange(timeout: UInt64, or doorbell: Doorbell) -> Bool
}

extension FrameGrabber {
    public var pointer: PointerReport? { nil }
    public func awaitChange(timeout: UInt64, or doorbell: Doorbell) -> Bool { false }
}

/// What one look at the source gave.
public enum CaptureOutcome: Sendable {
    case frame(CapturedFrame)
    /// Nothing changed (with damage tracking): nothing was grabbed.
    case unchanged
    /// The screen was drawn on, but not one pixel changed (a repaint): grabbed and compared,
    /// then dropped like an unchanged slot.
    case repainted
    /// Every buffer is still in use downstream.
    case busy
    /// The captured monitor or window is gone for now.
    case waiting
    /// The source is gone for good and the run should end as if its time were up: a window
    /// closed with `--exit-when-gone`. Not a thrown `PodiumError`: that would mark the run
    /// failed and skip holding the last picture to the end, while this end is the one the user
    /// asked for (exit 0, every output finalized).
    case ended
}
