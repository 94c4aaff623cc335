public import Logging

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
    func open(in context: StageContext) throws(PodiumError) -> Worker
    /// The stage thread's body once open: takes frames until the slot closes, releasing each.
    func run(_ worker: Worker, in context: StageContext)
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

/// What a stage sees of its run: the clock, the hub it publishes on, the logger, the live
/// settings it follows (rates, a frozen picture; keys for a window), and how it ends the run.
/// Not the run itself: the run's order of starting and stopping stays the run's.
public struct StageContext: Sendable {
    private let run: Run

    init(_ run: Run) {
        self.run = run
    }

    public var clock: any PacingClock { run.clock }
    public var hub: StreamHub { run.hub }
    public var logger: Logger { run.logger }
    /// The run's live state: the frame rate and the encoders' rate as they change, the frozen
    /// picture, and the verbs the keys of a window call.
    public var control: RunControl { run.control }
    /// Whether the run is ending.
    public var isStopping: Bool { run.isStopping }

    /// Takes one frame of `--frames` for the stage that counts them: `false` when none is left
    /// (the frame is not to be used); the run stops when the last is taken.
    public func takeFrame() -> Bool { run.takeFrame() }

    /// Ends the run with `error` (the first one reported wins).
    public func fail(_ error: PodiumError) { run.fail(error) }

    /// Ends the run cleanly, as its limits would.
    public func stop() { run.stop() }
}
