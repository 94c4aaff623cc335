import PodiumCore
import Synchronization
import Testing

/// A clock that only moves when told to, or when slept on.
final class FakeClock: PacingClock {
    private let time = Mutex<UInt64>(1_000)
    func now() -> UInt64 { time.withLock { $0 } }
    func sleep(until deadline: UInt64) { time.withLock { $0 = max($0, deadline) } }
    func advance(by nanoseconds: UInt64) { time.withLock { $0 += nanoseconds } }
}

@Suite struct FramePacerTests {
    @Test func onTimeSlotsFollowTheDeadlines() {
        let clock = FakeClock()
        var pacer = FramePacer(interval: 100)
        let first = pacer.nextSlot(clock: clock)!
        for index in 1...5 {
            clock.advance(by: 10) // work well within the interval
            let slot = pacer.nextSlot(clock: clock)!
            #expect(slot.deadline == first.deadline + UInt64(index) * 100)
            #expect(slot.skipped == 0)
            #expect(clock.now() == slot.deadline, "slept until the deadline, no drift")
        }
    }

    @Test func missedSlotsAreSkippedAndCountedNotBurst() {
        let clock = FakeClock()
        var pacer = FramePacer(interval: 100)
        let start = pacer.nextSlot(clock: clock)!.deadline
        clock.advance(by: 350) // slots at +100, +200 and +300 have passed
        let late = pacer.nextSlot(clock: clock)!
        #expect(late.deadline == start + 300, "takes the latest slot due")
        #expect(late.skipped == 2)
        let next = pacer.nextSlot(clock: clock)!
        #expect(next.deadline == start + 400, "then back on the grid, not a burst")
        #expect(next.skipped == 0)
        #expect(clock.now() == start + 400)
    }

    @Test func longSleepsAreCutForStopChecks() {
        let clock = FakeClock()
        var pacer = FramePacer(interval: 1_000)
        let start = pacer.nextSlot(clock: clock)!.deadline
        #expect(pacer.nextSlot(clock: clock, maximumSleep: 300) == nil)
        #expect(clock.now() == start + 300)
        #expect(pacer.nextSlot(clock: clock, maximumSleep: 300) == nil)
        #expect(pacer.nextSlot(clock: clock, maximumSleep: 300) == nil)
        #expect(pacer.nextSlot(clock: clock, maximumSleep: 300)?.deadline == start + 1_000)
    }
}

@Suite struct QueueTests {
    @Test func latestSlotReplacesAndHandsBackThePending() {
        let slot = LatestSlot<Int>()
        #expect(slot.offer(1) == nil)
        #expect(slot.offer(2) == 1, "the displaced element comes back for recycling")
        #expect(slot.take() == 2)
        #expect(slot.offer(3) == nil)
        slot.close()
        #expect(slot.offer(4) == 4, "a closed slot refuses")
        #expect(slot.take() == 3, "the pending element survives closing")
        #expect(slot.take() == nil)
    }

    @Test func latestSlotCanKeepThePendingAndDropTheNewcomer() {
        let slot = LatestSlot<Int>()
        let keepEven: (Int) -> Bool = { $0 % 2 == 0 }
        #expect(slot.offer(1, keepingPending: keepEven) == nil)
        #expect(slot.offer(2, keepingPending: keepEven) == 1, "an odd pending element is displaced")
        #expect(slot.offer(3, keepingPending: keepEven) == 3, "an even one stays; the newcomer is dropped")
        #expect(slot.take() == 2)
    }

    @Test func boundedQueueRefusesWhenFullAndDrainsAfterClose() {
        let queue = BoundedQueue<Int>(capacity: 3)
        for value in 1...3 { #expect(queue.push(value) == .enqueued) }
        #expect(queue.push(4) == .full)
        #expect(queue.depth == 3)
        #expect(queue.pop() == 1)
        #expect(queue.push(5) == .enqueued)
        queue.close()
        #expect(queue.push(6) == .closed)
        #expect([queue.pop(), queue.pop(), queue.pop(), queue.pop()] == [2, 3, 5, nil])
    }

    @Test func boundedQueueHandsOffAcrossThreads() async {
        let queue = BoundedQueue<Int>(capacity: 4)
        let consumer = Task.detached { () -> [Int] in
            var seen: [Int] = []
            while let value = queue.pop() { seen.append(value) }
            return seen
        }
        var pushed: [Int] = []
        for value in 0..<1_000 where queue.push(value) == .enqueued { pushed.append(value) }
        queue.close()
        #expect(await consumer.value == pushed, "in order, nothing lost that was accepted")
    }

    @Test func keyframeGateDropsUntilTheNextKeyframe() {
        var gate = KeyframeGate()
        var room = true
        var passed: [String] = []
        for (name, key, fits) in [("k1", true, true), ("p1", false, true), ("p2", false, false), ("p3", false, true),
                                  ("p4", false, true), ("k2", true, true), ("p5", false, true)] {
            room = fits
            if gate.pass(isKeyframe: key, push: { room }) { passed.append(name) }
        }
        #expect(passed == ["k1", "p1", "k2", "p5"])
        var late = KeyframeGate(waitingForKeyframe: true)
        #expect(!late.pass(isKeyframe: false) { true })
        #expect(late.pass(isKeyframe: true) { true })
    }

    @Test func framePoolLendsEachBufferOnceUntilEveryReaderReleased() {
        let storage = HeapStorage(capacity: 16)
        let buffers = (0..<2).map { FrameBuffer(bytes: storage.bytes, capacity: 16, index: $0, storage: storage) }
        let pool = FrameBufferPool(buffers)
        let a = pool.acquire()!
        let b = pool.acquire()!
        #expect(pool.acquire() == nil, "bounded: no third buffer")
        a.share(with: 2)
        a.release()
        #expect(pool.available == 0)
        a.release()
        #expect(pool.available == 1, "back after the last reader")
        b.share(with: 0)
        #expect(pool.available == 2)
    }
}

@Suite struct StatsTests {
    @Test func intervalAndSummaryArithmetic() {
        let counters = PipelineCounters(targetFPS: 30, sinkURLs: ["a.mkv", "udp://h:1"],
                                        renditions: [(name: "1280x720", outputs: ["a.mkv", "udp://h:1"])])
        let rendition = counters.renditions[0]
        var sampler = StatsSampler(counters: counters, time: 0, cpu: 0)
        counters.captured.add(31, ordering: .relaxed)
        counters.encoded.add(30, ordering: .relaxed)
        rendition.encoded.add(30, ordering: .relaxed)
        rendition.bytes.add(500_000, ordering: .relaxed)
        counters.skipped.add(2, ordering: .relaxed)
        counters.encodeDropped.add(1, ordering: .relaxed)
        counters.sinks[1].dropped.add(4, ordering: .relaxed)
        counters.sinks[0].bytes.add(250_000, ordering: .relaxed)
        for ms in 1...100 { counters.convert.record(nanoseconds: UInt64(ms) * 1_000_000) }
        let first = sampler.interval(time: 2_000_000_000, cpu: 1_000_000_000)
        #expect(first.encodedFPS == 15)
        #expect(first.capturedFPS == 15.5)
        #expect(first.mbps == 2.0)
        #expect(first.cpuCores == 0.5)
        #expect(first.drops == StatsSample.Drops(skipped: 2, noBuffer: 0, encoder: 1, sinks: 4))
        #expect(first.sinks[0].mbps == 1.0)
        #expect(abs(first.stages.convert.p50 - 50) < 0.5)
        #expect(abs(first.stages.convert.p95 - 95) < 0.5)

        counters.encoded.add(30, ordering: .relaxed)
        rendition.encoded.add(30, ordering: .relaxed)
        let second = sampler.interval(time: 3_000_000_000, cpu: 1_500_000_000)
        #expect(second.encodedFPS == 30)
        #expect(second.drops.total == 0)
        #expect(second.stages.convert.count == 0, "each interval starts afresh")

        let summary = sampler.summary(time: 3_000_000_000, cpu: 1_500_000_000)
        #expect(summary.kind == "summary")
        #expect(summary.frames == 60)
        #expect(summary.encodedFPS == 20)
        #expect(summary.stages.convert.count == 100, "the run keeps every measurement")
        #expect(summary.line.contains("fps 20.0/30"))
        #expect(summary.renditions.map(\.name) == ["1280x720"])
    }

    @Test func severalEncodersShowTheSlowestAndAddUp() {
        let counters = PipelineCounters(targetFPS: 30, sinkURLs: ["a.mkv", "b.mkv"],
                                        renditions: [(name: "1920x1080", outputs: ["a.mkv"]),
                                                     (name: "640x360", outputs: ["b.mkv"])])
        let (large, small) = (counters.renditions[0], counters.renditions[1])
        var sampler = StatsSampler(counters: counters, time: 0, cpu: 0)
        counters.encoded.add(30, ordering: .relaxed)
        large.encoded.add(27, ordering: .relaxed)
        large.dropped.add(3, ordering: .relaxed)
        small.encoded.add(30, ordering: .relaxed)
        large.bytes.add(1_000_000, ordering: .relaxed)
        small.bytes.add(125_000, ordering: .relaxed)
        for _ in 0..<10 {
            large.encode.record(nanoseconds: 20_000_000)
            small.encode.record(nanoseconds: 2_000_000)
            small.scale.record(nanoseconds: 500_000)
        }
        let sample = sampler.interval(time: 1_000_000_000, cpu: 0)
        #expect(sample.encodedFPS == 27, "the slowest encoder's rate")
        #expect(sample.mbps == 9, "every encoder's bytes")
        #expect(sample.drops.encoder == 3)
        #expect(abs(sample.stages.encode.p50 - 20) < 0.5, "the slowest encoder's times")
        #expect(sample.line.contains("encode(1920x1080) 20.0/"), "\(sample.line)")
        #expect(sample.renditions.map(\.dropped) == [3, 0])
        #expect(sample.renditionLines[1].hasPrefix("640x360: 30.0 fps, 0 dropped, 1.00 Mbit/s, ms p50/p95 scale 0.5/"),
                "\(sample.renditionLines)")
        #expect(sample.renditionLines[1].hasSuffix("; to b.mkv"))
    }
}
