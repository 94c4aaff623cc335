import Synchronization

/// Hands one source's frames to the stages that read it: each stage that wants frames gets a
/// share of the frame's buffer in its own latest-wins slot, so a busy stage drops its own frames
/// (counted as its own) and never holds up the source or the others.
///
/// It also keeps the run's timeline whole: the last frame handed out is kept (a share of its
/// buffer), and when the run ends on a still picture it is handed out once more at the last slot,
/// so a recording lasts as long as the run.
///
/// Thread-safe; frames come from one thread at a time (the source's).
public final class FanOut: Sendable {
    /// The stages that read this source.
    public let stages: [any FrameStage]
    /// The source's counters.
    public let counters: SourceCounters
    /// The run it belongs to (which holds no fan-out: no cycle).
    private let run: Run
    /// The source's place among the run's.
    private let index: Int
    /// Whether this fan-out is what `--frames` counts (no stage counts frames of its own).
    private let countsFrames: Bool
    private let state = Mutex(State())

    private struct State: Sendable {
        /// The stages that wanted the last frame, a bit each.
        var readers: UInt64 = 0
        /// The last frame handed out, held until a newer one comes.
        var last: CapturedFrame?
    }

    init(stages: [any FrameStage], counters: SourceCounters, run: Run, index: Int, countsFrames: Bool) {
        precondition(stages.count <= 64, "a source feeds at most 64 stages")
        self.stages = stages
        self.index = index
        self.counters = counters
        self.run = run
        self.countsFrames = countsFrames
    }

    // MARK: Starting

    /// The source is open and ready to capture; `description` says how it captures, for the start message.
    public func opened(_ description: String) {
        run.sourceOpened(index, description)
    }

    /// The source cannot capture: the run ends before anything is captured or written.
    public func failedToOpen(_ error: PodiumError) {
        run.sourceFailed(error)
    }

    /// Blocks the source's thread until capture starts (every stage and output is ready); `false`
    /// when the run ended before that.
    public func waitForStart() -> Bool { run.waitForCapture() }

    /// When the run's first slot is due, on its clock; valid once capture started.
    public var origin: UInt64 { run.origin }

    /// When the run ends by its `--duration`, on its clock; `nil` without one.
    public var end: UInt64? { run.end }

    public var clock: any PacingClock { run.clock }

    /// Whether the run is stopping: the source should end.
    public var isStopping: Bool { run.isStopping }

    /// The rate capture is paced at now.
    public var frameRate: FrameRate { run.control.tuning.frameRate }

    /// The colour the presenter blanked the screen with, or `nil` while it shows.
    public var blank: Blank? { run.control.blankColour }

    /// Whether the presenter froze the picture: nothing is captured or handed out.
    public var isPaused: Bool { run.control.paused.load(ordering: .relaxed) }

    /// Rung when the run's controls change or it stops: a resting capture wakes for it.
    public var controlsChanged: Doorbell { run.control.changed }

    /// Whether the run ends after so many frames (`--frames`): a still screen must still bring them.
    public var endsAfterFrames: Bool { run.limits.frames != nil }

    /// Whether an encoder was asked for a keyframe it has not made yet: an unchanged picture is
    /// grabbed again for it.
    public var keyframeWanted: Bool { run.hub.isKeyframeWanted }

    /// Ends the run with `error` (the source is gone for good).
    public func fail(_ error: PodiumError) { run.fail(error) }

    /// Ends the run (its end on the grid was reached).
    public func stopRun() { run.stop() }

    // MARK: Frames

    /// Which stages want a frame now: taken once a slot, so the frame grabbed for them and the
    /// stages it is offered to agree.
    public struct Look: Sendable {
        /// A bit per stage that wants the frame.
        public var readers: UInt64
        /// Whether a stage that did not want the last look wants this one (a window that
        /// appeared): it needs a picture now, changed or not.
        public var hasNewReader: Bool
        /// Whether any stage wants a frame.
        public var wantsFrame: Bool { readers != 0 }
    }

    /// Which stages want a frame now.
    public func look() -> Look {
        var readers: UInt64 = 0
        var index = 0
        while index < stages.count {
            if stages[index].wantsFrames { readers |= 1 << UInt64(index) }
            index += 1
        }
        let previous = state.withLock { state in
            defer { state.readers = readers }
            return state.readers
        }
        return Look(readers: readers, hasNewReader: readers & ~previous != 0)
    }

    /// Hands `frame` to the stages of `look`, each with a share of its buffer, and keeps it (one
    /// share more) as the last frame. Shares the source holds itself stay its own.
    public func deliver(_ frame: CapturedFrame, to look: Look) {
        if let end = run.end, frame.slotTime >= end &- run.origin {
            frame.buffer.share(with: 0)
            return run.stop()
        }
        if countsFrames, !run.takeFrame() {
            frame.buffer.share(with: 0)
            return
        }
        counters.captured.add(1, ordering: .relaxed)
        offer(frame, to: look.readers, keeping: true)
    }

    /// Hands `frame` to the stages that want it now: for a push source.
    public func deliver(_ frame: CapturedFrame) {
        guard !isPaused else {
            frame.buffer.share(with: 0)
            return
        }
        deliver(frame, to: look())
    }

    /// The source ended at slot time `slotTime`: when the last frame handed out is older, it is
    /// handed out again there (nothing changed since), so the picture lasts to the run's end. Then
    /// every stage's slot closes.
    public func finish(at slotTime: UInt64?) {
        let last = state.withLock { state in
            defer { state.last = nil }
            return state.last
        }
        if let last, let slotTime, slotTime > last.slotTime, !run.isFailed {
            var held = last
            held.slotTime = slotTime
            held.captureTime = run.clock.now()
            held.sequence = last.sequence &+ 1
            held.changedRows = RowBands()
            // The kept share passes on with it.
            offer(held, to: look().readers, keeping: false, sharesHeld: 1)
        } else {
            last?.buffer.release()
        }
        for stage in stages { stage.slot.close() }
    }

    /// Offers `frame` to the stages of `readers`. The buffer holds `sharesHeld` shares already
    /// (the source's, or the kept one); with `keeping`, one more is kept as the last frame.
    private func offer(_ frame: CapturedFrame, to readers: UInt64, keeping: Bool, sharesHeld: Int = 0) {
        frame.buffer.share(with: readers.nonzeroBitCount + (keeping ? 1 : 0) - sharesHeld)
        if keeping {
            let previous = state.withLock { state in
                defer { state.last = frame }
                return state.last
            }
            previous?.buffer.release()
        }
        var index = 0
        while index < stages.count {
            defer { index += 1 }
            guard readers & (1 << UInt64(index)) != 0 else { continue }
            let stage = stages[index]
            guard let displaced = stage.slot.offer(frame) else { continue }
            displaced.buffer.release()
            if displaced.sequence != frame.sequence { stage.countDrop() }
        }
    }
}
