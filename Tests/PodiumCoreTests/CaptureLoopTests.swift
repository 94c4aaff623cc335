import Foundation
import Logging
import PodiumCore
import Synchronization
import Testing

/// The capture loop and its branches with a fake clock and a fake grabber: pacing, frame limits,
/// fan-out, the idle repeat, and the keyframe schedule, with no X server and no encoder.
@Suite struct CaptureLoopTests {
    /// Lends buffers from a pool of its own; each grab costs `cost` nanoseconds of the fake clock.
    final class FakeGrabber: FrameGrabber {
        let clock: FakeClock
        let cost: UInt64
        let pool: FrameBufferPool
        /// Whether the screen changes between looks; an unchanged one is grabbed only when asked.
        let changes: Bool
        let failAt: UInt64?
        let grabTimes = Mutex<[UInt64]>([])

        init(clock: FakeClock, cost: UInt64 = 1_000_000, buffers: Int = 8, changes: Bool = true,
             failAt: UInt64? = nil) {
            self.clock = clock
            self.cost = cost
            self.changes = changes
            self.failAt = failAt
            pool = FrameBufferPool((0..<buffers).map { index in
                let storage = HeapStorage(capacity: 64)
                return FrameBuffer(bytes: storage.bytes, capacity: 64, index: index, storage: storage)
            })
        }

        func capture(sequence: UInt64, time: UInt64, evenIfUnchanged: Bool) throws(PodiumError) -> CaptureOutcome {
            if sequence == failAt { throw .unavailable("the fake screen went away") }
            guard changes || evenIfUnchanged else { return .unchanged }
            guard let buffer = pool.acquire() else { return .busy }
            grabTimes.withLock { $0.append(time) }
            clock.advance(by: cost)
            return .frame(CapturedFrame(buffer: buffer, size: PixelSize(width: 4, height: 4), bytesPerRow: 16,
                                        captureTime: time, sequence: sequence))
        }
    }

    /// Takes frames on its own thread, records their sequence numbers and releases them.
    final class RecordingBranch: FrameBranch {
        let slot = LatestSlot<CapturedFrame>()
        let sequences = Mutex<[UInt64]>([])
        let drops = Atomic<Int>(0)
        func countDrop() { drops.add(1, ordering: .relaxed) }
        func prepare(_ pipeline: Pipeline) async {}
        func run(_ pipeline: Pipeline) {
            while let frame = slot.take() {
                sequences.withLock { $0.append(frame.sequence) }
                frame.buffer.release()
            }
        }
        func finish(_ pipeline: Pipeline) async {}
        var seen: Int { sequences.withLock { $0.count } + drops.load(ordering: .relaxed) }
    }

    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    func pipeline(_ grabber: FakeGrabber, _ branches: [RecordingBranch], fps: Int = 30, idleFPS: Int = 1,
                  limits: Pipeline.Limits) -> Pipeline {
        Pipeline(capture: grabber, branches: branches, counters: PipelineCounters(targetFPS: fps, sinkURLs: []),
                 fps: FrameRate(fps), idleFPS: FrameRate(idleFPS), limits: limits, logger: Self.logger,
                 clock: grabber.clock)
    }

    /// Slots due before the end of `seconds` at `fps`: slot k is due at k × interval.
    func slots(seconds: UInt64, fps: Int) -> Int {
        let interval = FrameRate(fps).intervalNanoseconds
        return Int((seconds * 1_000_000_000 + interval - 1) / interval)
    }

    @Test func aCheapGrabTakesEverySlotOnItsDeadline() async {
        let grabber = FakeGrabber(clock: FakeClock(), cost: 5_000_000)
        let branch = RecordingBranch()
        let run = pipeline(grabber, [branch], limits: .init(duration: .seconds(1)))
        #expect(await run.run() == nil)
        let times = grabber.grabTimes.withLock { $0 }
        #expect(times.count == slots(seconds: 1, fps: 30))
        #expect(run.counters.skipped.load(ordering: .relaxed) == 0)
        let interval = FrameRate(30).intervalNanoseconds
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 == interval }, "on the grid, no drift")
        #expect(branch.seen == times.count, "every frame reached the branch or was counted as dropped there")
    }

    @Test func aSlowGrabSkipsSlotsAndNeverBursts() async {
        // 50 ms a grab at 30 fps: one slot in three is missed.
        let grabber = FakeGrabber(clock: FakeClock(), cost: 50_000_000)
        let run = pipeline(grabber, [RecordingBranch()], limits: .init(duration: .seconds(2)))
        #expect(await run.run() == nil)
        let times = grabber.grabTimes.withLock { $0 }
        let skipped = run.counters.skipped.load(ordering: .relaxed)
        #expect(skipped > 0)
        #expect(times.count + skipped == slots(seconds: 2, fps: 30), "every slot taken or counted as skipped")
        let interval = FrameRate(30).intervalNanoseconds
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= interval }, "never two frames in one interval")
    }

    @Test func framesEndTheRunWhenNoBranchCountsThem() async {
        let grabber = FakeGrabber(clock: FakeClock())
        let branch = RecordingBranch()
        let run = pipeline(grabber, [branch], limits: .init(frames: 5))
        #expect(await run.run() == nil)
        #expect(run.counters.captured.load(ordering: .relaxed) == 5)
        #expect(branch.seen == 5)
    }

    @Test func everyBranchGetsEveryFrameOrCountsItsDropAndEveryBufferComesBack() async {
        let grabber = FakeGrabber(clock: FakeClock(), buffers: 6)
        let branches = [RecordingBranch(), RecordingBranch()]
        let run = pipeline(grabber, branches, limits: .init(duration: .seconds(1)))
        #expect(await run.run() == nil)
        let captured = run.counters.captured.load(ordering: .relaxed)
        #expect(captured > 0)
        for branch in branches {
            #expect(branch.seen == captured)
            let sequences = branch.sequences.withLock { $0 }
            #expect(sequences == sequences.sorted(), "in order")
        }
        #expect(grabber.pool.available == 6, "released by every branch, back in the pool")
    }

    @Test func anUnchangedScreenIsGrabbedOnlyAtTheIdleRate() async {
        let grabber = FakeGrabber(clock: FakeClock(), changes: false)
        let run = pipeline(grabber, [RecordingBranch()], limits: .init(duration: .seconds(3)))
        #expect(await run.run() == nil)
        // The first look, then one a second.
        #expect(grabber.grabTimes.withLock { $0.count } == 3)
        #expect(run.counters.unchanged.load(ordering: .relaxed) == slots(seconds: 3, fps: 30) - 3)
    }

    @Test func aGrabberThatFailsEndsTheRunWithItsError() async {
        let grabber = FakeGrabber(clock: FakeClock(), failAt: 3)
        let branch = RecordingBranch()
        let run = pipeline(grabber, [branch], limits: .init(duration: .seconds(10)))
        let error = await run.run()
        #expect(error?.exitCode == .unavailable)
        #expect(error?.message.contains("went away") == true)
        #expect(run.counters.captured.load(ordering: .relaxed) == 3)
    }

    @Test func keyframesComeByTimeAndWhenAnOutputJoins() {
        var schedule = KeyframeSchedule(interval: .seconds(2))
        let second: UInt64 = 1_000_000_000
        #expect(schedule.wantsKeyframe(at: 0, requested: false), "the first frame")
        schedule.encoded(at: 0, keyframe: true)
        #expect(!schedule.wantsKeyframe(at: second, requested: false))
        #expect(schedule.wantsKeyframe(at: second, requested: true), "an output joined")
        #expect(schedule.wantsKeyframe(at: 2 * second, requested: false), "the interval passed")
        // An idle screen: the next frame comes 5 s later, and is a keyframe.
        schedule.encoded(at: 2 * second, keyframe: true)
        #expect(schedule.wantsKeyframe(at: 7 * second, requested: false))
        // A keyframe the encoder chose itself (a scene cut) restarts the interval.
        schedule.encoded(at: 7 * second, keyframe: false)
        schedule.encoded(at: 8 * second, keyframe: true)
        #expect(!schedule.wantsKeyframe(at: 9 * second, requested: false))
        #expect(schedule.wantsKeyframe(at: 10 * second, requested: false))
    }

    @Test func keyframesOnAGridStayOnItWhateverComesBetween() {
        var schedule = KeyframeSchedule(interval: .seconds(1), onGrid: true)
        let millisecond: UInt64 = 1_000_000
        let start = 5_000 * millisecond
        schedule.encoded(at: start, keyframe: true)
        // A frame just past each second is due, even when late (1.03 s): the next stays at 2 s.
        #expect(!schedule.wantsKeyframe(at: start + 999 * millisecond, requested: false))
        #expect(schedule.wantsKeyframe(at: start + 1_030 * millisecond, requested: false))
        schedule.encoded(at: start + 1_030 * millisecond, keyframe: true)
        #expect(!schedule.wantsKeyframe(at: start + 1_990 * millisecond, requested: false))
        // A keyframe asked for between (a viewer joined) does not move the grid.
        schedule.encoded(at: start + 1_500 * millisecond, keyframe: true)
        #expect(schedule.wantsKeyframe(at: start + 2_000 * millisecond, requested: false))
        schedule.encoded(at: start + 2_000 * millisecond, keyframe: true)
        // An idle screen skips multiples: the frame at 4.6 s is due, then 5 s.
        #expect(schedule.wantsKeyframe(at: start + 4_600 * millisecond, requested: false))
        schedule.encoded(at: start + 4_600 * millisecond, keyframe: true)
        #expect(!schedule.wantsKeyframe(at: start + 4_990 * millisecond, requested: false))
        #expect(schedule.wantsKeyframe(at: start + 5_000 * millisecond, requested: false))
    }
}
