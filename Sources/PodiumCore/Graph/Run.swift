public import Logging
public import Synchronization

/// One run of the graph: each source on a thread of its own feeds its stages through a fan-out;
/// the encoders among them register their streams and publish their packets on the run's one
/// hub; the outputs subscribe to their programs there.
///
/// ```
/// source ─ fan-out ─┬─ latest-wins slot ─▶ window stage (scale, present)
///                   └─ latest-wins slot ─▶ encode stage ─▶ encoders ─▶ hub ─▶ outputs
/// ```
///
/// Starting is ordered so that a failure comes before anything is captured or written: sources
/// and stages open first (on their own threads: an X connection, an encoder), then the outputs,
/// then capture starts. Stopping goes the other way: sources stop, stages drain (encoders
/// flush), outputs write what is queued and finalize.
public final class Run: Sendable {
    /// When the run ends by itself.
    public struct Limits: Sendable {
        public var duration: Duration?
        public var frames: Int?

        public init(duration: Duration? = nil, frames: Int? = nil) {
            self.duration = duration
            self.frames = frames
        }
    }

    /// The run's sound: its sources and the stage that mixes and encodes them.
    public struct SoundBranch: Sendable {
        public var sources: [any SoundSource]
        public var stage: SoundStage
        /// The blocks each source's clock settles on before its sound is placed (`SoundClock`);
        /// tests of placing alone take 1.
        public var settlingBlocks: Int

        public init(sources: [any SoundSource], stage: SoundStage,
                    settlingBlocks: Int = SoundClock.settlingBlocks) {
            self.sources = sources
            self.stage = stage
            self.settlingBlocks = settlingBlocks
        }
    }

    public let counters: RunCounters
    public let hub: StreamHub
    public let clock: any PacingClock
    public let limits: Limits
    public let logger: Logger
    /// `--frames`, counted once: by the stage whose frames are the run's, or by the fan-out.
    private let frameQuota: FrameQuota?
    /// The live state (pause, blank, rates, layout, the presenter's tools, recordings) and the
    /// verbs that change it.
    public let control: RunControl
    /// Set once every part was ready and capture began.
    public let started = Atomic<Bool>(false)

    private let source: any FrameSource
    /// What reads the source's frames: the encode stage, windows.
    private let stages: [any FrameStage]
    private let sound: SoundBranch?
    private let outputs: OutputGroup
    private let stopping: Stopping
    private let failure = Mutex<PodiumError?>(nil)
    private let capture = ConditionLock(Capture.waiting)
    /// What each source said as it opened: the pictures' first, then each of the sound's.
    private let opened: Mutex<[String?]>
    private let ready: ReadyLatch
    /// Set when capture starts: when slot 0 is due, on `clock`.
    private let start = Atomic<UInt64>(0)
    /// Set when capture starts: when `--duration` ends the run, on `clock` (0: no end).
    private let ending = Atomic<UInt64>(0)

    private enum Capture: Sendable {
        case waiting, started, cancelled
    }

    /// - Parameters:
    ///   - source: where the pictures come from (one grabber, or two composed).
    ///   - stages: what reads them.
    ///   - outputs: the outputs, subscribed to the hub's streams.
    ///   - clock: what paces capture; a fake one in tests.
    ///   - sound: the run's sound, if it has any.
    ///   - layout: the layout of two sources, for keys to change.
    ///   - tuning: what may change as the run goes on; by default the counters' rate, in any bounds.
    ///   - recordings: what starts and stops recordings as the run goes on.
    ///   - replay: the last minutes kept, for `save`.
    ///   - presenter: the tools on the picture the grabber draws, which keys turn on and off.
    ///   - pen: the presenter's pen.
    public init(source: any FrameSource, stages: [any FrameStage], sound: SoundBranch? = nil, outputs: OutputGroup,
                hub: StreamHub, counters: RunCounters, limits: Limits, logger: Logger,
                clock: any PacingClock = MonotonicClock(), layout: LayoutSwitch? = nil, tuning: LiveTuning? = nil,
                recordings: (any RecordingControl)? = nil, replay: (any ReplayControl)? = nil,
                presenter: PresenterTools = PresenterTools(),
                pen: PenControl = PenControl()) {
        self.source = source
        self.stages = stages
        let stopping = Stopping()
        self.stopping = stopping
        control = RunControl(tuning: tuning ?? LiveTuning(frameRate: FrameRate(counters.targetFPS),
                                                          plannedRate: counters.renditions.isEmpty ? nil
                                                              : .quality(EncoderRate.defaultQuality)),
                             layout: layout, recordings: recordings, replay: replay, presenter: presenter, pen: pen,
                             hub: hub, clock: clock, logger: logger, quit: { stopping.stop() })
        self.sound = sound
        self.outputs = outputs
        self.hub = hub
        self.counters = counters
        self.limits = limits
        self.logger = logger
        self.clock = clock
        let soundParts = sound.map { $0.sources.count + 1 } ?? 0
        opened = Mutex(Array(repeating: nil, count: 1 + (sound?.sources.count ?? 0)))
        ready = ReadyLatch(count: 1 + stages.count + soundParts)
        frameQuota = limits.frames.map(FrameQuota.init(frames:))
        // Sources that still wait to start give up.
        let capture = capture
        stopping.onStop { capture.withLock(wake: .all) { if $0 == .waiting { $0 = .cancelled } } }
    }

    /// Takes one frame of `--frames` for the stage that counts them: `false` when none is left
    /// (the frame is not to be used); the run stops when the last is taken.
    public func takeFrame() -> Bool {
        switch frameQuota?.take() {
        case nil, .granted: return true
        case .last:
            stop()
            return true
        case .refused: return false
        }
    }

    // MARK: Running

    public var isStopping: Bool { stopping.isRaised }

    /// Whether the run is ending on a failure.
    public var isFailed: Bool { failure.withLock { $0 != nil } }

    /// When slot 0 of the frame-rate grid is due, on `clock`; valid once capture started.
    public var origin: UInt64 { start.load(ordering: .acquiring) }

    /// When `--duration` ends the run, on `clock`; `nil` without one.
    public var end: UInt64? {
        let end = ending.load(ordering: .acquiring)
        return end == 0 ? nil : end
    }

    /// What each source said as it opened (`1920x1080+0+0 of :1 with MIT-SHM`).
    public var sourceDescriptions: [String] { opened.withLock { $0.prefix(1).compactMap { $0 } } }

    /// What each sound source said as it opened (`sound from the desktop (…)`).
    public var soundDescriptions: [String] { opened.withLock { $0.dropFirst().compactMap { $0 } } }

    /// Runs every part to the end, which comes with the limits, `stop()`, a source that is gone or
    /// a part's failure.
    /// - Parameters:
    ///   - beforeOutputs: called once sources and stages are open, before any output opens (an
    ///     HLS folder is made); a failure ends the run there.
    ///   - onStart: called once every part is ready, as capture starts; not called when a part
    ///     failed, so nothing claims a start that never came.
    /// - Returns: the error that ended the run, or `nil` for a clean end.
    public func run(beforeOutputs: @Sendable () throws(PodiumError) -> Void = {}, onStart: () -> Void = {}) async
        -> PodiumError? {
        let sourceThreads = ThreadGroup()
        let stageThreads = ThreadGroup()
        let fanOut = FanOut(stages: stages, counters: counters.sources[0], run: self, index: 0,
                            countsFrames: !stages.contains(where: \.countsFrames))
        sourceThreads.spawn("podium-capture") { [source] in source.run(into: fanOut) }
        for stage in stages {
            stageThreads.spawn("podium-stage") { [self] in runStage(stage) }
        }
        if let sound {
            for (number, source) in sound.sources.enumerated() {
                let feed = SoundFeed(ring: sound.stage.ring, counters: sound.stage.counters, run: self,
                                     index: 1 + number, source: number, settlingBlocks: sound.settlingBlocks)
                sourceThreads.spawn("podium-sound") { source.run(into: feed) }
            }
            stageThreads.spawn("podium-audio") { [self] in sound.stage.run(in: self) }
        }
        if let failure = await ready.wait() { fail(failure) }
        if !isFailed && !isStopping {
            do {
                try beforeOutputs()
            } catch {
                fail(error)
            }
        }
        if !isFailed && !isStopping { await outputs.start(self) }
        if !isFailed && !isStopping {
            started.store(true, ordering: .relaxed)
            onStart()
            let origin = clock.now()
            control.tuning.began(at: origin)
            if let duration = limits.duration {
                ending.store(origin + UInt64(max(1, duration.nanoseconds)), ordering: .releasing)
            }
            start.store(origin, ordering: .releasing)
            capture.withLock(wake: .all) { $0 = .started }
        } else {
            capture.withLock(wake: .all) { $0 = .cancelled }
        }
        await sourceThreads.wait()
        for stage in stages { stage.slot.close() }
        sound?.stage.ring.close()
        await stageThreads.wait()
        await control.recordings?.finish()
        outputs.close()
        await outputs.finish(self)
        return failure.withLock { $0 }
    }

    /// A stage's thread: opens its worker (told to `ready`), then runs it until its slot closes.
    private func runStage<Stage: FrameStage>(_ stage: Stage) {
        let worker: Stage.Worker
        do {
            worker = try stage.open(in: StageContext(self))
        } catch {
            ready.report(error)
            return
        }
        ready.report(nil)
        stage.run(worker, in: StageContext(self))
    }

    // MARK: Sources

    func sourceOpened(_ index: Int, _ description: String) {
        opened.withLock { $0[index] = description }
        ready.report(nil)
    }

    /// A part other than a source (a stage) opened, or could not (`error`).
    func partOpened(_ error: PodiumError?) {
        ready.report(error)
    }

    func sourceFailed(_ error: PodiumError) {
        ready.report(error)
    }

    /// Blocks a source's thread until capture starts; `false` when the run ended before.
    func waitForCapture() -> Bool {
        capture.wait(until: { $0 != .waiting }) { $0 == .started }
    }

    // MARK: Stopping

    /// Asks the run to end: capture stops, every stage drains, every output is finalized.
    public func stop() {
        stopping.stop()
        control.changed.ring()
    }

    /// Runs `handler` when the run is asked to stop (to abort blocking I/O, say), or now if it was.
    public func onStop(_ handler: @escaping @Sendable () -> Void) {
        stopping.onStop(handler)
    }

    /// Ends the run with `error` (the first one reported wins).
    public func fail(_ error: PodiumError) {
        failure.withLock { $0 = $0 ?? error }
        stop()
    }
}

/// How a run is asked to end: a flag the real-time threads poll, and what else is to be done then
/// (blocking I/O aborted, waiting sources let go), each once.
private final class Stopping: Sendable {
    private let flag = StopFlag()
    private let handlers = Mutex<[@Sendable () -> Void]>([])

    var isRaised: Bool { flag.isRaised }

    func stop() {
        let handlers = handlers.withLock { handlers in
            defer { handlers = [] }
            return flag.raise() ? handlers : []
        }
        for handler in handlers { handler() }
    }

    /// Runs `handler` at the stop, or now if it came.
    func onStop(_ handler: @escaping @Sendable () -> Void) {
        let stopped = handlers.withLock { handlers in
            if !flag.isRaised { handlers.append(handler) }
            return flag.isRaised
        }
        if stopped { handler() }
    }
}
