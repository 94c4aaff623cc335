/// A stage fed by a source's fan-out: the encode stage (convert once, then every encoder), a
/// window. Each has its own latest-wins slot and thread, so a slow stage drops its own frames and
/// never holds up capture or the other stages.
///
/// What a stage works with on its thread (an X connection, a converter, encoders) is its
/// `Worker`: made on that thread by `open` and used there alone, so it needs no locks and need
/// not be `Sendable`.
public protocol FrameStage: Sendable {
    associatedtype Worker
    /// Frames waiting for this stage (latest wins: a newer frame replaces a pending one).
    var slot: LatestSlot<CapturedFrame> { get }
    /// Counts a frame replaced before the stage took it.
    func countDrop()
    /// Opens what the stage works with, on the stage's own thread, before capture starts: a
    /// failure here ends the run before anything is captured or written.
    func open(in run: Run) throws(PodiumError) -> Worker
    /// The stage thread's body once open: takes frames until the slot closes, releasing each.
    func run(_ worker: Worker, in run: Run)
    /// Whether the stage takes frames now; a window waiting for its display does not.
    var wantsFrames: Bool { get }
    /// Whether the stage is what `--frames` counts: the frames it takes are the run's frames (the
    /// encode stage's are what is recorded). With no such stage, the fan-out counts frames.
    var countsFrames: Bool { get }
}

extension FrameStage {
    public var wantsFrames: Bool { true }
    public var countsFrames: Bool { false }
}
