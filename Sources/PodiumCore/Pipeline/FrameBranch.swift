
/// What grabs frames for the pipeline: the X server's screen (`ScreenCapture`), or a fake in tests.
///
/// Called only from the capture thread.
public protocol FrameGrabber: Sendable {
    /// Grabs the picture now, as frame `sequence` stamped `time`.
    /// - Parameter evenIfUnchanged: grab even when nothing changed on screen since the last frame.
    /// - Throws: when the source is gone for good (the X server closed the connection).
    func capture(sequence: UInt64, time: UInt64, evenIfUnchanged: Bool) throws(PodiumError) -> CaptureOutcome
}

/// What one look at the screen gave.
public enum CaptureOutcome: Sendable {
    case frame(CapturedFrame)
    /// Nothing changed on screen (with damage tracking): nothing was grabbed.
    case unchanged
    /// The screen was drawn on, but not one pixel changed (a repaint): grabbed and compared,
    /// then dropped like an unchanged slot.
    case repainted
    /// Every buffer is still in use downstream.
    case busy
    /// The captured monitor is gone for now.
    case waiting
}

/// A stage fed by the capture thread: it has its own latest-wins slot and thread, so a slow
/// branch drops its own frames and never holds up capture or the other branches.
public protocol FrameBranch: Sendable {
    /// Frames waiting for this branch (capacity one: a newer frame replaces a pending one).
    var slot: LatestSlot<CapturedFrame> { get }
    /// Counts a frame replaced before the branch took it.
    func countDrop()
    /// Opens what must be open before capture starts (a file should get the first frame).
    func prepare(_ pipeline: Pipeline) async
    /// The branch thread's body: takes frames until the slot closes, releasing each one.
    func run(_ pipeline: Pipeline)
    /// Waits for the branch's outputs to be finalized, once its thread has ended.
    func finish(_ pipeline: Pipeline) async
    /// Whether the branch takes frames now; a window waiting for its display does not.
    var wantsFrames: Bool { get }
    /// Whether the branch ends the run after `--frames` frames of its own (the encoder counts the
    /// frames it encoded); with none that does, capture counts the frames it grabbed.
    var countsFrames: Bool { get }
}

extension FrameBranch {
    public var wantsFrames: Bool { true }
    public var countsFrames: Bool { false }
}
