import Foundation
import Logging
@testable import PodiumCore
import PodiumCoreTesting
import Synchronization
import Testing

/// What a running run lets change — the frame rate, the encoders' rate, the picture frozen — and
/// the budget that chooses the rate: with a fake clock and fake parts.
@Suite struct LiveTuningTests {
    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    @Test func fpsTakesARateARangeOrAuto() throws {
        #expect(try FrameRateRequest(parsing: "24") == FrameRateRequest(start: FrameRate(24)))
        let range = try FrameRateRequest(parsing: "5-60")
        #expect(range.start == FrameRate(60) && range.bounds == 5...60 && !range.isAuto, "starts at the top")
        let auto = try FrameRateRequest(parsing: "auto")
        #expect(auto.isAuto && auto.bounds == FrameRateRequest.autoBounds && auto.start == FrameRate(30))
        for bad in ["0", "abc", "60-5", "5-", "-5", "5-300", "30-30"] {
            #expect(throws: OptionParseError.self, "\(bad)") { try FrameRateRequest(parsing: bad) }
        }
    }

    @Test func plusAndMinusStepAlongTheLadderWithinTheBounds() {
        let open = LiveTuning(frameRate: FrameRate(30), plannedRate: .quality(23))
        #expect(open.rates == LiveTuning.ladder)
        #expect(open.rate(steppedBy: 1) == 48 && open.rate(steppedBy: -1) == 24 && open.rate(steppedBy: -2) == 20)
        let offLadder = LiveTuning(frameRate: FrameRate(7), plannedRate: .quality(23))
        #expect(offLadder.rate(steppedBy: 1) == 10 && offLadder.rate(steppedBy: -1) == 5)
        let capped = LiveTuning(frameRate: FrameRate(60), bounds: 1...60, plannedRate: .quality(23))
        #expect(capped.rates.first == 1 && capped.rates.last == 60)
        #expect(capped.rate(steppedBy: 1) == nil, "the ceiling of --fps 1-60")
        let lowest = LiveTuning(frameRate: FrameRate(5), plannedRate: .quality(23))
        #expect(lowest.rate(steppedBy: -1) == nil)
    }

    @Test func aNewRateStartsOneOfItsIntervalsAfterTheLastSlot() async {
        let box = Mutex<Run?>(nil)
        // At the 11th frame (slot 10, 333 ms), down to 10 fps.
        let grabber = FakeGrabber(clock: FakeClock()) { sequence in
            if sequence == 10 { _ = try? box.withLock { $0 }?.control.setFrameRate(10, by: .key) }
        }
        let run = Run(source: grabber.source(), stages: [RecordingStage()],
                      outputs: OutputGroup(outputs: []), hub: StreamHub(),
                      counters: RunCounters(targetFPS: 30, sinkURLs: []), limits: .init(duration: .seconds(1)),
                      logger: Self.logger, clock: grabber.clock)
        box.withLock { $0 = run }
        #expect(await run.run() == nil)
        let grid = FrameGrid(fps: FrameRate(30))
        let times = grabber.slotTimes
        #expect(Array(times.prefix(11)) == (0...10).map { grid.offset(ofSlot: $0) })
        let after = times.dropFirst(10)
        #expect(zip(after, after.dropFirst()).allSatisfy { $1 - $0 == 100_000_000 }, "\(times)")
        #expect(times.count == 11 + 6, "333 ms at 30 fps, then 100 ms apart to the end: \(times)")
        #expect(run.counters.sources[0].skipped.load(ordering: .relaxed) == 0)
        let changes = run.control.takeChanges()
        #expect(changes.map(\.line) == ["fps 30 → 10, by key"])
        #expect(run.control.takeChanges().isEmpty, "taken once")
        let rates = run.control.tuning.timeAtRates(at: grabber.clock.now())
        #expect(rates.map(\.framesPerSecond) == [30, 10])
    }

    @Test func aChangeTheRunCannotTakeChangesNothing() throws {
        let run = FakeGraph().run
        #expect(throws: PodiumError.self) { try run.control.setFrameRate(0, by: .control) }
        #expect(throws: PodiumError.self) { try run.control.setFrameRate(500, by: .control) }
        #expect(throws: PodiumError.self) {
            try run.control.setBitrate(Bitrate(bitsPerSecond: 4_000_000), by: .control)
        }
        #expect(throws: PodiumError.self) { try run.control.setQuality(60, by: .control) }
        #expect(run.control.tuning.frameRate == FrameRate(30) && run.control.tuning.version == 0)
        #expect(try run.control.setFrameRate(30, by: .control) == nil, "the rate it has")
        #expect(run.control.takeChanges().isEmpty)
        #expect(try run.control.setQuality(28, by: .control)?.line == "quality crf 23 → crf 28, by control")
        #expect(run.control.tuning.version == 1)
    }

    @Test func lessAndMoreStepTheBitRateOrTheQuality() throws {
        let tuning = LiveTuning(frameRate: FrameRate(30), plannedRate: .bitrate(Bitrate(bitsPerSecond: 4_000_000)))
        let bitrate = RunControl(tuning: tuning, layout: nil, recordings: nil, presenter: PresenterTools(),
                                 hub: StreamHub(), clock: FakeClock(), logger: Self.logger, quit: {})
        #expect(bitrate.stepEncoderRate(1, by: .key)?.line == "bitrate 4Mbit/s → 5Mbit/s, by key")
        #expect(bitrate.stepEncoderRate(-2, by: .key)?.line == "bitrate 5Mbit/s → 3.2Mbit/s, by key")
        #expect(bitrate.tuning.encoding.bitrate(planned: Bitrate(bitsPerSecond: 1_000_000))
                    == Bitrate(bitsPerSecond: 800_000),
                "a ladder's smaller renditions keep their proportion")
        #expect(try bitrate.setBitrate(Bitrate(bitsPerSecond: 2_000_000), by: .control)?.to == "2Mbit/s")
        #expect(throws: PodiumError.self) { try bitrate.setBitrate(Bitrate(bitsPerSecond: 100_000_000), by: .control) }
        let quality = FakeGraph().run
        #expect(quality.control.stepEncoderRate(1, by: .window)?.line == "quality crf 23 → crf 21, by window")
        for _ in 0..<30 { quality.control.stepEncoderRate(1, by: .key) }
        #expect(quality.control.tuning.plannedRate?.tuned(quality.control.tuning.encoding) == .quality(0))
        #expect(quality.control.stepEncoderRate(1, by: .key) == nil, "as far as it goes")
    }

    @Test func pauseIsSaidOnceAndAKeyframeOnlyWhenSomethingIsEncoded() {
        let run = FakeGraph().run
        #expect(run.control.setPaused(true, by: .control)?.line == "picture live → frozen, by control")
        #expect(run.control.setPaused(true, by: .control) == nil)
        let frozen = run.control.paused.load(ordering: .relaxed)
        #expect(frozen)
        run.control.perform(.pause)
        let after = run.control.paused.load(ordering: .relaxed)
        #expect(!after)
        #expect(run.control.requestKeyframe(by: .key) == nil, "no encoder has opened: nothing to ask")
        #expect(run.control.takeChanges().map(\.setting) == ["picture", "picture"])
    }

    @Test func aBlankScreenGrabsNothingSendsItsColourAtTheIdleRateAndComesBackWhole() async {
        let box = Mutex<Run?>(nil)
        let stage = RecordingStage()
        // Blanked after the 6th grab (slot 5); shown again once capture slept past 2.5 s. Capture
        // waits at each sleep for the stage to take what it was given: every frame is seen.
        let clock = FakeClock { deadline in
            while stage.slot.hasPending { usleep(50) }
            guard let run = box.withLock({ $0 }), run.control.blankColour != nil, run.origin > 0,
                  deadline >= run.origin + 2_500_000_000 else { return }
            run.control.setBlank(nil, by: .key)
        }
        let grabber = FakeGrabber(clock: clock) { sequence in
            if sequence == 5 { box.withLock { $0 }?.control.setBlank(.black, by: .key) }
        }
        let run = Run(source: grabber.source(), stages: [stage],
                      outputs: OutputGroup(outputs: []), hub: StreamHub(),
                      counters: RunCounters(targetFPS: 30, sinkURLs: []), limits: .init(duration: .seconds(4)),
                      logger: Self.logger, clock: clock)
        box.withLock { $0 = run }
        #expect(await run.run() == nil)
        let grid = FrameGrid(fps: FrameRate(30))
        // Nothing grabbed from slot 6 (the blank's first) until 2.5 s.
        let grabs = grabber.slotTimes
        #expect(Array(grabs.prefix(6)) == (0...5).map { grid.offset(ofSlot: $0) })
        #expect(grabs[6] >= 2_500_000_000, "\(grabs.prefix(8))")
        // The stage saw black at slot 6 (whole), then again a second and two seconds later with
        // nothing changed.
        let frames = zip(stage.slotTimes, zip(stage.firstBytes, stage.changedRows)).map { ($0, $1.0, $1.1) }
        let black = frames.filter { $0.1 == 0 }
        let blankStart = grid.offset(ofSlot: 6)
        #expect(black.map(\.0) == [0, 1, 2].map { blankStart + $0 * 1_000_000_000 }, "\(frames.map(\.0))")
        #expect(black.map(\.2) == [nil, RowBands(), RowBands()], "whole first, then nothing changed")
        // The screen again: the first grab after the blank is whole, the ones after it as grabbed.
        let after = frames.filter { $0.0 >= grabs[6] }
        #expect(after.allSatisfy { (frame: (UInt64, UInt8, RowBands?)) in frame.1 == FakeGrabber.screenByte })
        #expect(after.first?.0 == grabs[6] && after.first?.2 == nil)
        #expect(after.dropFirst().allSatisfy { (frame: (UInt64, UInt8, RowBands?)) in frame.2 == RowBands(0..<4) })
        #expect(run.control.takeChanges().map(\.line)
                    == ["screen shown → black, by key", "screen black → shown, by key"])
    }

    // MARK: The budget

    /// - Parameter encoding: the milliseconds a frame's encoding took (the median).
    func second(_ elapsed: Double, cpu: Double, encoderDrops: Int = 0, encoding: Double = 5) -> StatsSample {
        let encode = StageTimes(count: 30, p50: encoding, p95: encoding, p99: encoding, max: encoding)
        return StatsSample(
            kind: "interval", elapsed: elapsed, targetFPS: 0, capturedFPS: 30, unchangedFPS: 0, encodedFPS: 30,
            presentedFPS: nil, frames: 30, drops: .init(skipped: 0, noBuffer: 0, encoder: encoderDrops, sinks: 0),
            mbps: 1, cpuCores: cpu, stages: .init(grab: .empty, convert: .empty, encode: encode, send: .empty,
                                                  present: .empty, latency: .empty),
            renditions: [], sinks: [])
    }

    /// Runs the budget over `seconds`, the CPU a second costing `cost(rate)`; returns the rate each second.
    func follow(_ budget: inout FrameRateBudget, from rate: Int, seconds: ClosedRange<Int>,
                cost: (Int) -> Double) -> [Int] {
        var rate = rate, rates: [Int] = []
        for elapsed in seconds {
            if let decision = budget.observe(second(Double(elapsed), cpu: cost(rate)), rate: rate,
                                             rates: LiveTuning.ladder.filter { $0 <= 60 }) {
                rate = decision.framesPerSecond
            }
            rates.append(rate)
        }
        return rates
    }

    @Test func theBudgetFindsTheRateTheCPUAffordsWithinSecondsAndHoldsIt() {
        var budget = FrameRateBudget(maxCPU: 0.5)
        // 60 fps costs one core: the budget affords 30 at most, 28 with headroom, between the
        // ladder's 24 and 30.
        let rates = follow(&budget, from: 60, seconds: 1...40) { Double($0) / 60 }
        #expect(rates[1] == 28, "down at 2 s, to what the cost per frame affords: \(rates)")
        #expect(Set(rates.dropFirst(1)) == [28], "29 would cost 0.48, over 95 % of the budget: held")
        #expect(budget.limit == .cpu)
        // The machine gets busier: each frame costs twice as much.
        let busier = follow(&budget, from: 28, seconds: 41...44) { Double($0) / 30 }
        #expect(busier[1] < 28 && busier[1] >= 10, "\(busier)")
    }

    @Test func aRateBetweenTheLaddersStepsHoldsATightBudgetWhenFramesCostMoreAboveAKnee() {
        // 10 fps costs 0.2 cores, each frame more 0.035 (as measured on a busy 1080p screen): 11
        // fits 95 % of 0.25 cores, 12 does not.
        var budget = FrameRateBudget(maxCPU: 0.25)
        let cost = { (rate: Int) in rate <= 10 ? 0.02 * Double(rate) : 0.2 + 0.035 * Double(rate - 10) }
        let rates = follow(&budget, from: 60, seconds: 1...90, cost: cost)
        #expect(rates.suffix(30).allSatisfy { $0 == 11 }, "\(rates)")
        #expect(rates.dropFirst(2).allSatisfy { cost($0) <= 0.25 * 1.05 }, "never over once settled: \(rates)")
    }

    @Test func theBudgetGoesUpAfterTenCalmSecondsAndBacksOffFromARateItHadToLeave() {
        var budget = FrameRateBudget(maxCPU: 1)
        // Until 30 s, frames cost little; from then, 48 fps is too much.
        var rate = 24, history: [Int] = []
        for elapsed in 1...80 {
            let cost = Double(rate) * (elapsed < 30 ? 0.01 : rate >= 48 ? 0.03 : 0.015)
            if let decision = budget.observe(second(Double(elapsed), cpu: cost), rate: rate,
                                             rates: LiveTuning.ladder.filter { $0 <= 60 }) {
                rate = decision.framesPerSecond
            }
            history.append(rate)
        }
        #expect(history[8] == 24 && history[9] == 30, "up one step after 10 calm seconds: \(history)")
        #expect(history[19] == 48, "\(history)")
        let ups = zip(history, history.dropFirst()).enumerated().filter { $1.1 > $1.0 }.map(\.offset)
        #expect(zip(ups, ups.dropFirst()).allSatisfy { $1 - $0 >= 10 }, "never up twice within 10 s: \(history)")
        let downs = zip(history, history.dropFirst()).filter { $1 < $0 }.count
        #expect(downs <= 3, "a rate left twice waits longer each time: \(history)")
    }

    @Test func aBusierMachineLowersTheRateBeforeAFrameIsLost() {
        var budget = FrameRateBudget(maxCPU: 1)
        // 24 fps: 42 ms a frame. Encoding took 12 ms; other programs now take the cores, and 35.
        #expect(budget.observe(second(1, cpu: 0.5, encoding: 12), rate: 24, rates: LiveTuning.ladder) == nil)
        #expect(budget.observe(second(2, cpu: 0.5, encoding: 35), rate: 24, rates: LiveTuning.ladder) == nil)
        let down = budget.observe(second(3, cpu: 0.5, encoding: 35), rate: 24, rates: LiveTuning.ladder)
        #expect(down?.framesPerSecond == 20, "a step of the ladder at least: \(String(describing: down))")
        #expect(down?.reason == "a frame's encoding takes 35 ms of its 42" && budget.limit == .encoder)
        // Calm again, but 24 fps would leave a frame 33 ms for its 35: it stays.
        var rate = 20
        for elapsed in 4...30 {
            if let up = budget.observe(second(Double(elapsed), cpu: 0.4, encoding: elapsed < 10 ? 35 : 12), rate: rate,
                                       rates: LiveTuning.ladder) {
                rate = up.framesPerSecond
            }
            if elapsed < 10 { #expect(rate == 20) }
        }
        #expect(rate == 24 || rate == 30, "up again once frames are quick: \(rate)")
    }

    @Test func withoutACPUBudgetOnlyDroppedFramesLowerTheRate() {
        var budget = FrameRateBudget(maxCPU: nil)
        let still = budget.observe(second(1, cpu: 1.9), rate: 60, rates: [30, 60])
        #expect(still == nil, "CPU alone is no reason")
        #expect(budget.observe(second(2, cpu: 1.9, encoderDrops: 5), rate: 60, rates: [30, 60]) == nil, "one second")
        let down = budget.observe(second(3, cpu: 1.9, encoderDrops: 5), rate: 60, rates: [30, 60])
        #expect(down?.framesPerSecond == 30 && down?.reason == "the encoder dropped 5 frames")
        #expect(budget.limit == .encoder)
    }
}
