public import Foundation
public import Logging
public import Synchronization

/// The running job: one capture thread feeding every branch.
///
/// ```
/// capture ─┬─ latest-wins slot ─▶ window branch (scale, present)
///          └─ latest-wins slot ─▶ encode branch ─ bounded queue per sink ─▶ sinks
/// ```
public final class Pipeline: Sendable {
    /// When the run ends by itself.
    public struct Limits: Sendable {
        public var duration: Duration?
        public var frames: Int?

        public init(duration: Duration? = nil, frames: Int? = nil) {
            self.duration = duration
            self.frames = frames
        }
    }

    public let counters: PipelineCounters
    public let clock: any PacingClock
    public let limits: Limits
    public let logger: Logger
    private let capture: any FrameGrabber
    private let branches: [any FrameBranch]
    private let interval: UInt64
    /// How often an unchanged screen is still grabbed and sent on.
    private let idleInterval: UInt64
    private let stopFlag = StopFlag()
    private let failure = Mutex<PodiumError?>(nil)
    private let stopHandlers = Mutex<[@Sendable () -> Void]>([])
    /// Set while the presenter froze the picture: capture grabs nothing.
    public let paused = Atomic<Bool>(false)
    /// Set once every branch was prepared and capture began.
    public let started = Atomic<Bool>(false)

    /// - Parameters:
    ///   - idleFPS: how often an unchanged screen is still grabbed and sent on.
    ///   - clock: what paces capture; a fake one in tests.
    public init(capture: any FrameGrabber, branches: [any FrameBranch], counters: PipelineCounters, fps: FrameRate,
                idleFPS: FrameRate, limits: Limits, logger: Logger, clock: any PacingClock = MonotonicClock()) {
        self.capture = capture
        self.clock = clock
        self.branches = branches
        self.counters = counters
        self.interval = fps.intervalNanoseconds
        self.idleInterval = idleFPS.intervalNanoseconds
        self.limits = limits
        self.logger = logger
    }

    public var isStopping: Bool { stopFlag.isRaised }

    /// Runs every stage to the end, which comes with the limits, `stop()`, a lost X display or
    /// a branch's failure.
    /// - Returns: the error that ended the run, or `nil` for a clean end.
    /// - Parameter onStart: called once every branch is ready, as capture starts; not called when
    ///   preparing failed (an output that cannot be created), so nothing claims a start that never came.
    public func run(onStart: () -> Void = {}) async -> PodiumError? {
        for branch in branches { await branch.prepare(self) }
        if failure.withLock({ $0 }) == nil {
            started.store(true, ordering: .relaxed)
            onStart()
        }
        let threads = DispatchGroup()
        spawn("podium-capture", group: threads) { self.captureLoop() }
        for branch in branches {
            spawn("podium-branch", group: threads) { branch.run(self) }
        }
        await threads.wait()
        for branch in branches { await branch.finish(self) }
        return failure.withLock { $0 }
    }

    /// Asks the run to end: capture stops, every branch drains, every output is finalized.
    public func stop() {
        let handlers = stopHandlers.withLock { handlers in
            defer { handlers = [] }
            return stopFlag.raise() ? handlers : []
        }
        for handler in handlers { handler() }
    }

    /// Runs `handler` when the run is asked to stop (to abort blocking I/O, say), or now if it was.
    public func onStop(_ handler: @escaping @Sendable () -> Void) {
        let stopped = stopHandlers.withLock { handlers in
            if !stopFlag.isRaised { handlers.append(handler) }
            return stopFlag.isRaised
        }
        if stopped { handler() }
    }

    /// Ends the run with `error` (the first one reported wins).
    public func fail(_ error: PodiumError) {
        failure.withLock { $0 = $0 ?? error }
        stop()
    }

    private func captureLoop() {
        var pacer = FramePacer(interval: interval)
        var sequence: UInt64 = 0
        var lastFrame: UInt64 = 0
        var previousReaders: UInt64 = 0
        let start = clock.now()
        let end = limits.duration.map { start + UInt64($0.nanoseconds) }
        let frameLimit = branches.contains(where: \.countsFrames) ? nil : limits.frames
        while !stopFlag.isRaised {
            guard let slotTaken = pacer.nextSlot(clock: clock, maximumSleep: 50_000_000) else { continue }
            counters.skipped.add(slotTaken.skipped, ordering: .relaxed)
            if let end, slotTaken.deadline >= end {
                stop()
                break
            }
            // Nothing is grabbed that nobody would use: frozen, or every branch is waiting.
            if paused.load(ordering: .relaxed) { continue }
            // One look per frame (a bit per branch), so the count shared and the branches offered agree.
            var readers: UInt64 = 0
            for (index, branch) in branches.enumerated() where branch.wantsFrames { readers |= 1 << index }
            if readers == 0 { continue }
            // A branch that just started taking frames (a window that appeared) needs a picture now.
            let newReader = readers & ~previousReaders != 0
            previousReaders = readers
            let grabStart = clock.now()
            let outcome: CaptureOutcome
            do {
                // An unchanged screen is grabbed again only at the idle rate, so players and late joiners keep going.
                outcome = try capture.capture(sequence: sequence, time: grabStart,
                                              evenIfUnchanged: newReader || grabStart >= lastFrame + idleInterval)
            } catch {
                fail(error)
                break
            }
            let frame: CapturedFrame
            switch outcome {
            case .frame(let captured):
                frame = captured
            case .unchanged:
                counters.unchanged.add(1, ordering: .relaxed)
                continue
            case .repainted:
                counters.unchanged.add(1, ordering: .relaxed)
                counters.repainted.add(1, ordering: .relaxed)
                continue
            case .busy:
                counters.noBuffer.add(1, ordering: .relaxed)
                continue
            case .waiting:
                continue
            }
            lastFrame = grabStart
            counters.grab.record(nanoseconds: clock.now() - grabStart)
            counters.captured.add(1, ordering: .relaxed)
            sequence += 1
            if let frameLimit, sequence >= frameLimit { stop() }
            frame.buffer.share(with: readers.nonzeroBitCount)
            for (index, branch) in branches.enumerated() where readers & (1 << index) != 0 {
                guard let displaced = branch.slot.offer(frame) else { continue }
                displaced.buffer.release()
                if displaced.sequence != frame.sequence { branch.countDrop() }
            }
        }
        for branch in branches { branch.slot.close() }
    }

    /// Runs `body` on a thread of its own named `name`, entered in `group` until it ends.
    public func spawn(_ name: String, group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        let thread = Thread {
            body()
            group.leave()
        }
        thread.name = name
        thread.start()
    }
}

extension DispatchGroup {
    /// Waits without blocking the cooperative pool.
    public func wait() async {
        await withCheckedContinuation { continuation in
            notify(queue: .global()) { continuation.resume() }
        }
    }

    /// Waits up to `timeout`; returns whether everything finished.
    public func wait(timeout: Duration) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let result = self.wait(timeout: .now() + .nanoseconds(Int(timeout.nanoseconds)))
                continuation.resume(returning: result == .success)
            }
        }
    }
}
