import Synchronization

/// A pull source paced by the run: its grabber is asked for a picture at each slot of the
/// frame-rate grid, on absolute deadlines of the monotonic clock. A missed slot is skipped and
/// counted, never caught up in a burst. With nothing changed, nothing is grabbed but a repeat at
/// the idle rate (so players and late joiners keep going).
public struct PacedCapture: FrameSource {
    /// Opens the grabber on the capture thread, where it stays.
    public typealias Open = @Sendable () throws(PodiumError) -> any FrameGrabber

    /// How often an unchanged picture is still grabbed and handed on.
    public let idleFPS: FrameRate
    private let open: Open

    /// Paced at the run's frame rate (`Run.tuning`), which may change as it goes.
    public init(idleFPS: FrameRate, open: @escaping Open) {
        self.idleFPS = idleFPS
        self.open = open
    }

    public func run(into fanOut: FanOut) {
        var grabber: any FrameGrabber
        do {
            grabber = try open()
        } catch {
            return fanOut.failedToOpen(error)
        }
        fanOut.opened(grabber.description)
        guard fanOut.waitForStart() else { return fanOut.finish(at: nil) }
        let clock = fanOut.clock
        let counters = fanOut.counters
        var fps = fanOut.frameRate
        var pacer = FramePacer(grid: FrameGrid(fps: fps), start: fanOut.origin)
        let idleInterval = idleFPS.intervalNanoseconds
        var sequence: UInt64 = 0
        /// The slot time of the last frame grabbed.
        var lastFrame: UInt64?
        /// The last slot reached: where the run ends on the grid.
        var reached: UInt64?
        while !fanOut.isStopping {
            // A new rate starts one of its intervals after the last slot taken.
            if fanOut.frameRate != fps {
                fps = fanOut.frameRate
                pacer = pacer.retimed(to: FrameGrid(fps: fps))
            }
            guard let slot = pacer.nextSlot(clock: clock, maximumSleep: 50_000_000) else { continue }
            counters.skipped.add(slot.skipped, ordering: .relaxed)
            if let end = fanOut.end, slot.deadline >= end {
                fanOut.stopRun()
                break
            }
            let slotTime = slot.deadline - fanOut.origin
            reached = slotTime
            // Nothing is grabbed that nobody would use: frozen, or every stage is waiting.
            if fanOut.isPaused { continue }
            let look = fanOut.look()
            guard look.wantsFrame else { continue }
            let grabStart = clock.now()
            let outcome: CaptureOutcome
            do {
                // An unchanged picture is grabbed again only at the idle rate, and for a stage
                // that just started taking frames.
                let idle = lastFrame.map { slotTime >= $0 + idleInterval } ?? true
                outcome = try grabber.capture(sequence: sequence, time: grabStart, slotTime: slotTime,
                                              evenIfUnchanged: look.hasNewReader || idle)
            } catch {
                fanOut.fail(error)
                break
            }
            switch outcome {
            case .frame(var frame):
                frame.interval = pacer.grid.interval
                lastFrame = slotTime
                counters.grab.record(nanoseconds: clock.now() - grabStart)
                sequence += 1
                fanOut.deliver(frame, to: look)
            case .unchanged:
                counters.unchanged.add(1, ordering: .relaxed)
            case .repainted:
                counters.unchanged.add(1, ordering: .relaxed)
                counters.repainted.add(1, ordering: .relaxed)
            case .busy:
                counters.noBuffer.add(1, ordering: .relaxed)
            case .waiting:
                break
            case .ended:
                fanOut.stopRun()
            }
        }
        fanOut.finish(at: reached)
    }
}
