import Synchronization

/// A pull source paced by the run: its grabber is asked for a picture at each slot of the
/// frame-rate grid, on absolute deadlines of the monotonic clock. A missed slot is skipped and
/// counted, never caught up in a burst. With nothing changed, nothing is grabbed but a repeat at
/// the idle rate, where the outputs need one (players and late joiners keep going), and for an
/// encoder asked for a keyframe (an output that joined); a grabber that says when its picture
/// changes is slept on meanwhile, the slots passed over counted as unchanged.
public struct PacedCapture: FrameSource {
    /// Opens the grabber on the capture thread, where it stays.
    public typealias Open = @Sendable () throws(PodiumError) -> any FrameGrabber

    /// How often an unchanged picture is still grabbed and handed on; `nil`: only when an encoder
    /// is asked for a keyframe.
    public let idleFPS: FrameRate?
    private let open: Open

    /// Paced at the run's frame rate (`Run.tuning`), which may change as it goes.
    public init(idleFPS: FrameRate?, open: @escaping Open) {
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
        // A run of so many frames (`--frames`) ends on a still screen too: at the idle rate.
        let idleInterval = (idleFPS ?? (fanOut.endsAfterFrames ? FrameRate(1) : nil))?.intervalNanoseconds ?? .max
        var sequence: UInt64 = 0
        /// The slot time of the last frame handed on, and the size of the last one grabbed.
        var lastFrame: UInt64?
        var lastSize: PixelSize?
        var blank = BlankPicture(bufferCount: 3 + 2 * fanOut.stages.count)
        /// The screen was blanked: the next grab is whole, and says nothing of changed rows (the
        /// stages last saw the blank).
        var afterBlank = false
        /// The last slot reached: where the run ends on the grid.
        var reached: UInt64?
        /// The last look found nothing changed: the grabber may be slept on until it says otherwise.
        var resting: FramePacer.Slot?
        /// A slot looked at again: a change came just after its look found nothing.
        var again: FramePacer.Slot?
        while !fanOut.isStopping {
            if let looked = resting {
                resting = nil
                // Woken by the run's controls and its stop; at the latest for the next repeat, and
                // often enough to see a new reader and a pointer that was warped.
                let now = clock.now()
                // The run's end is a slot to take: the last picture is held to it.
                let repeatDue = lastFrame.map { fanOut.origin + $0 } ?? now
                let wake = min(idleInterval > .max - repeatDue ? .max : repeatDue + idleInterval, fanOut.end ?? .max)
                if wake > now,
                   grabber.awaitChange(timeout: min(wake - now, Self.longestRest), or: fanOut.controlsChanged) {
                    // A change that came within a quarter interval of a slot that missed it (the
                    // look, or a slot slept through) is that slot's, taken a little late: a source
                    // drawing at the capture's own rate just after each slot would otherwise lose
                    // every other picture to the slot after.
                    let woke = clock.now(), quarter = pacer.grid.interval / 4
                    if woke < looked.deadline + quarter {
                        again = looked
                        continue
                    }
                    let passed = pacer.pass(until: min(woke, wake) - min(min(woke, wake), quarter))
                    counters.unchanged.add(passed, ordering: .relaxed)
                    if passed > 0, let deadline = pacer.lastDeadline { reached = deadline - fanOut.origin }
                }
            }
            // A new rate starts one of its intervals after the last slot taken.
            if fanOut.frameRate != fps {
                fps = fanOut.frameRate
                pacer = pacer.retimed(to: FrameGrid(fps: fps))
            }
            let retried = again != nil
            guard let slot = again ?? pacer.nextSlot(clock: clock, maximumSleep: 50_000_000) else { continue }
            again = nil
            // A slot looked at again: its first look, counted unchanged, is this one.
            if retried { counters.unchanged.subtract(1, ordering: .relaxed) }
            if !retried { counters.skipped.add(slot.skipped, ordering: .relaxed) }
            if let end = fanOut.end, slot.deadline >= end {
                // A loop held up past the end (a loaded machine stalls it for most of a second)
                // still holds the last picture to the last slot before it: the run lasts its time.
                if let last = pacer.deadline(ofLastSlotBefore: end), last >= fanOut.origin {
                    reached = max(reached ?? 0, last - fanOut.origin)
                }
                fanOut.stopRun()
                break
            }
            let slotTime = slot.deadline - fanOut.origin
            reached = slotTime
            // Nothing is grabbed that nobody would use: frozen (a blank goes out even so), or
            // every stage is waiting.
            if fanOut.isPaused && fanOut.blank == nil { continue }
            let look = fanOut.look()
            guard look.wantsFrame else { continue }
            // An encoder asked for a keyframe (an output joined) needs a picture to make it of.
            let idle = lastFrame.map { slotTime - min(slotTime, $0) >= idleInterval } ?? true
                || fanOut.keyframeWanted
            if let colour = fanOut.blank {
                // Nothing is grabbed: the colour goes out when it is new, then at the idle rate.
                afterBlank = true
                guard let size = lastSize, blank.shown != colour || look.hasNewReader || idle else {
                    counters.unchanged.add(1, ordering: .relaxed)
                    continue
                }
                guard var frame = blank.frame(colour, size: size, sequence: sequence, time: clock.now(),
                                              slotTime: slotTime) else {
                    counters.noBuffer.add(1, ordering: .relaxed)
                    continue
                }
                frame.interval = pacer.grid.interval
                lastFrame = slotTime
                sequence += 1
                fanOut.deliver(frame, to: look)
                continue
            }
            if afterBlank { blank.ended() }
            let grabStart = clock.now()
            let outcome: CaptureOutcome
            do {
                // An unchanged picture is grabbed again only at the idle rate, and for a stage
                // that just started taking frames.
                outcome = try grabber.capture(sequence: sequence, time: grabStart, slotTime: slotTime,
                                              evenIfUnchanged: look.hasNewReader || idle || afterBlank)
            } catch {
                fanOut.fail(error)
                break
            }
            switch outcome {
            case .frame(var frame):
                frame.interval = pacer.grid.interval
                if afterBlank { frame.changedRows = nil }
                afterBlank = false
                lastSize = frame.size
                lastFrame = slotTime
                counters.grab.record(nanoseconds: clock.now() - grabStart)
                sequence += 1
                fanOut.deliver(frame, to: look)
            case .unchanged:
                counters.unchanged.add(1, ordering: .relaxed)
                // Rests once a slot: a slot looked at again goes on to the next.
                if !retried { resting = slot }
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

    /// The longest a resting loop sleeps before it looks at the run again.
    static let longestRest: UInt64 = 100_000_000
}
