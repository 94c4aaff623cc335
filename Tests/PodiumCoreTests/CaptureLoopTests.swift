import Foundation
import Logging
import PodiumCore
import PodiumCoreTesting
import Synchronization
import Testing

/// The paced capture loop and its fan-out with a fake clock and a fake grabber: pacing, frame
/// limits, fan-out, the idle repeat, and the keyframe schedule, with no X server and no encoder.
@Suite struct CaptureLoopTests {
    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    func run(_ grabber: FakeGrabber, _ stages: [RecordingStage], fps: Int = 30, idleFPS: Int = 1,
             limits: Run.Limits) -> Run {
        Run(source: grabber.source(fps: fps, idleFPS: idleFPS), stages: stages,
            outputs: OutputGroup(outputs: []), hub: StreamHub(),
            counters: RunCounters(targetFPS: fps, sinkURLs: []), limits: limits, logger: Self.logger,
            clock: grabber.clock)
    }

    /// Slots due before the end of `seconds` at `fps`.
    func slots(seconds: UInt64, fps: Int) -> Int { Int(seconds) * fps }

    @Test func aCheapGrabTakesEverySlotOnItsDeadline() async {
        let grabber = FakeGrabber(clock: FakeClock(), cost: 5_000_000)
        let stage = RecordingStage()
        let run = run(grabber, [stage], limits: .init(duration: .seconds(1)))
        #expect(await run.run() == nil)
        let times = grabber.slotTimes
        #expect(times.count == slots(seconds: 1, fps: 30))
        #expect(run.counters.sources[0].skipped.load(ordering: .relaxed) == 0)
        let grid = FrameGrid(fps: FrameRate(30))
        #expect(times == (0..<30).map { grid.offset(ofSlot: $0) }, "on the grid, no drift")
        #expect(stage.seen >= times.count, "every frame reached the stage or was counted as dropped there")
    }

    @Test func aSlowGrabSkipsSlotsAndNeverBursts() async {
        // 50 ms a grab at 30 fps: one slot in three is missed.
        let grabber = FakeGrabber(clock: FakeClock(), cost: 50_000_000)
        let run = run(grabber, [RecordingStage()], limits: .init(duration: .seconds(2)))
        #expect(await run.run() == nil)
        let times = grabber.slotTimes
        let skipped = run.counters.sources[0].skipped.load(ordering: .relaxed)
        #expect(skipped > 0)
        #expect(times.count + skipped == slots(seconds: 2, fps: 30), "every slot taken or counted as skipped")
        let interval = FrameRate(30).intervalNanoseconds
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= interval }, "never two frames in one interval")
    }

    @Test func framesEndTheRunWhenNoStageCountsThem() async {
        let grabber = FakeGrabber(clock: FakeClock())
        let stage = RecordingStage()
        let run = run(grabber, [stage], limits: .init(frames: 5))
        #expect(await run.run() == nil)
        #expect(run.counters.sources[0].captured.load(ordering: .relaxed) == 5, "counted once, at the fan-out")
        #expect(stage.seen == 5)
    }

    @Test func everyStageGetsEveryFrameOrCountsItsDropAndEveryBufferComesBack() async {
        let grabber = FakeGrabber(clock: FakeClock(), buffers: 7)
        let stages = [RecordingStage(), RecordingStage()]
        let run = run(grabber, stages, limits: .init(duration: .seconds(1)))
        #expect(await run.run() == nil)
        let captured = run.counters.sources[0].captured.load(ordering: .relaxed)
        #expect(captured > 0)
        for stage in stages {
            #expect(stage.seen == captured)
            #expect(stage.sequences == stage.sequences.sorted(), "in order")
        }
        #expect(grabber.pool.available == 7, "released by every stage and the fan-out, back in the pool")
    }

    @Test func anUnchangedScreenIsGrabbedOnlyAtTheIdleRateAndHeldToTheEnd() async {
        let grabber = FakeGrabber(clock: FakeClock(), changes: false)
        let stage = RecordingStage()
        let run = run(grabber, [stage], limits: .init(duration: .seconds(3)))
        #expect(await run.run() == nil)
        // The first look, then one a second, on the grid.
        #expect(grabber.slotTimes == [0, 1_000_000_000, 2_000_000_000])
        #expect(run.counters.sources[0].unchanged.load(ordering: .relaxed) == slots(seconds: 3, fps: 30) - 3)
        // The last picture again at the last slot, nothing changed: the run lasts its 3 s.
        let last = FrameGrid(fps: FrameRate(30)).offset(ofSlot: 89)
        #expect(stage.seen == 4)
        #expect(stage.slotTimes.last == last)
        #expect(stage.changedRows.last == RowBands())
        #expect(stage.sequences.last == 3)
    }

    /// A loop held up from a look at 3.3 s to past the end of a 4 s run (a loaded machine): the
    /// last picture is still held to the last slot, and the run lasts its 4 s.
    @Test func aLoopHeldUpPastTheEndStillHoldsTheLastPictureToTheLastSlot() async {
        let clock = FakeClock()
        let grabber = FakeGrabber(clock: clock, changes: false, changesAt: [3_300_000_000]) { sequence in
            if sequence == 4 { clock.advance(by: 800_000_000) }
        }
        let stage = RecordingStage()
        let run = run(grabber, [stage], limits: .init(duration: .seconds(4)))
        #expect(await run.run() == nil)
        #expect(grabber.slotTimes == [0, 1_000_000_000, 2_000_000_000, 3_000_000_000, 3_300_000_000])
        #expect(stage.slotTimes.last == FrameGrid(fps: FrameRate(30)).offset(ofSlot: 119))
        #expect(stage.changedRows.last == RowBands())
    }

    /// A screen that says when it changes is slept on between looks: a look every tenth of a
    /// second (for the run's controls) instead of every slot, the repeats and the end as before.
    @Test func anUnchangedScreenThatSaysWhenItChangesIsSleptOn() async {
        let grabber = FakeGrabber(clock: FakeClock(), changes: false, waits: true)
        let stage = RecordingStage()
        let run = run(grabber, [stage], limits: .init(duration: .seconds(3)))
        #expect(await run.run() == nil)
        #expect(grabber.slotTimes == [0, 1_000_000_000, 2_000_000_000])
        #expect(grabber.looks <= 3 * 11 && grabber.waited >= 3 * 9, "looks \(grabber.looks), waits \(grabber.waited)")
        #expect(run.counters.sources[0].unchanged.load(ordering: .relaxed) == slots(seconds: 3, fps: 30) - 3)
        #expect(run.counters.sources[0].skipped.load(ordering: .relaxed) == 0, "a slot slept through is not missed")
        #expect(stage.slotTimes.last == FrameGrid(fps: FrameRate(30)).offset(ofSlot: 89))
    }

    /// Outputs that need no repeats (files): a still screen is grabbed once, and again only for an
    /// encoder asked for a keyframe (an output that joined), which takes the request with it.
    @Test func aStillScreenIsGrabbedAgainOnlyForAKeyframeAskedFor() async {
        let hub = StreamHub()
        let grabber = FakeGrabber(clock: FakeClock(), changes: false) { sequence in
            if sequence == 0 { hub.requestKeyframe(stream: 0) }
            if sequence == 1 { _ = hub.takeKeyframeRequest(stream: 0) }
        }
        let stage = RecordingStage()
        let run = Run(source: grabber.source(idleFPS: 0), stages: [stage], outputs: OutputGroup(outputs: []),
                      hub: hub, counters: RunCounters(targetFPS: 30, sinkURLs: []),
                      limits: .init(duration: .seconds(3)), logger: Self.logger, clock: grabber.clock)
        #expect(await run.run() == nil)
        #expect(grabber.slotTimes == [0, FrameGrid(fps: FrameRate(30)).offset(ofSlot: 1)], "\(grabber.slotTimes)")
        #expect(run.counters.sources[0].unchanged.load(ordering: .relaxed) == slots(seconds: 3, fps: 30) - 2)
    }

    /// A change that comes just after a look found nothing is that slot's (a little late), not the
    /// next one's; one that comes later waits for the next slot.
    @Test func aChangeJustAfterALookIsThatSlots() async {
        let grid = FrameGrid(fps: FrameRate(30))
        // Just after a slot slept through, just after a slot looked at, and too late for its slot.
        let changes = [grid.offset(ofSlot: 30) + 2_000_000, grid.offset(ofSlot: 31) + 2_000_000,
                       grid.offset(ofSlot: 60) + 20_000_000]
        let grabber = FakeGrabber(clock: FakeClock(), changes: false, changesAt: changes, waits: true)
        let stage = RecordingStage()
        let run = run(grabber, [stage], idleFPS: 0, limits: .init(duration: .seconds(3)))
        #expect(await run.run() == nil)
        #expect(grabber.slotTimes == [0, 30, 31, 61].map { grid.offset(ofSlot: $0) }, "\(grabber.slotTimes)")
        #expect(run.counters.sources[0].unchanged.load(ordering: .relaxed) == slots(seconds: 3, fps: 30) - 4)
        #expect(run.counters.sources[0].skipped.load(ordering: .relaxed) == 0)
    }

    /// `--frames 3` on a still screen recorded to a file (no idle repeat needed): it still ends,
    /// the frames coming at a repeat a second.
    @Test func aRunOfSoManyFramesEndsOnAStillScreen() async {
        let grabber = FakeGrabber(clock: FakeClock(), changes: false, waits: true)
        let stage = RecordingStage()
        let run = run(grabber, [stage], idleFPS: 0, limits: .init(frames: 3))
        #expect(await run.run() == nil)
        #expect(grabber.slotTimes == [0, 1_000_000_000, 2_000_000_000], "\(grabber.slotTimes)")
    }

    @Test func aGrabberThatFailsEndsTheRunWithItsError() async {
        let grabber = FakeGrabber(clock: FakeClock(), failAt: 3)
        let stage = RecordingStage()
        let run = run(grabber, [stage], limits: .init(duration: .seconds(10)))
        let error = await run.run()
        #expect(error?.exitCode == .unavailable)
        #expect(error?.message.contains("went away") == true)
        #expect(run.counters.sources[0].captured.load(ordering: .relaxed) == 3)
        #expect(stage.seen == 3, "no picture held after a failure")
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
