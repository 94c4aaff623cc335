import PodiumCore
import PodiumCoreTesting
import Synchronization
import Testing

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

    @Test func aGridOfWholeSecondsDoesNotDrift() {
        let grid = FrameGrid(fps: FrameRate(30))
        #expect(grid.offset(ofSlot: 30) == 1_000_000_000, "30 slots are a second, not 30 × 33 333 333 ns")
        #expect(grid.offset(ofSlot: 108_000) == 3_600_000_000_000, "an hour")
        #expect(grid.offset(ofSlot: 1) == 33_333_333)
        #expect(grid.slot(at: 999_999_999) == 29)
        #expect(grid.slot(at: 1_000_000_000) == 30)
        let clock = FakeClock()
        var pacer = FramePacer(grid: grid, start: 5_000)
        #expect(pacer.nextSlot(clock: clock)?.deadline == 5_000, "slot 0 at the start given")
        clock.advance(by: 1_000_000_000)
        let late = pacer.nextSlot(clock: clock)
        #expect(late?.index == 30)
        #expect(late?.skipped == 29)
    }

    /// A push source's frames take the slot nearest their capture time, never one another's, and
    /// never run ahead of real time.
    @Test func pushedFramesTakeSlotsOfTheirOwn() {
        var grid = FrameGrid(interval: 100)
        #expect(grid.place(at: 0) == 0)
        #expect(grid.place(at: 140) == 100, "nearest")
        #expect(grid.place(at: 160) == 200, "its slot is free: nearest, 40 ahead")
        #expect(grid.place(at: 190) == nil, "slot 200 is taken and 300 is more than half a slot ahead")
        #expect(grid.place(at: 260) == 300, "the next free slot, 40 ahead")
        #expect(grid.place(at: 1_000) == 1_000, "after a pause, back where it is")
    }

    @Test func slotsPassedOverAreNeitherTakenNorMissed() {
        let clock = FakeClock()
        var pacer = FramePacer(interval: 100)
        let start = pacer.nextSlot(clock: clock)!.deadline
        clock.sleep(until: start + 350)
        #expect(pacer.pass(until: clock.now()) == 3)
        let next = pacer.nextSlot(clock: clock)
        #expect(next?.index == 4 && next?.deadline == start + 400 && next?.skipped == 0)
        // A wait that ends on a slot's deadline leaves that slot to be taken.
        clock.sleep(until: start + 600)
        #expect(pacer.pass(until: clock.now()) == 1)
        let due = pacer.nextSlot(clock: clock)
        #expect(due?.index == 6 && due?.deadline == start + 600 && due?.skipped == 0)
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
        let queue = BoundedQueue(capacity: 3, policy: DropWhenFull<Int>())
        for value in 1...3 { #expect(queue.push(value) == .enqueued) }
        #expect(queue.push(4) == .dropped)
        #expect(queue.depth == 3)
        #expect(queue.pop() == 1)
        #expect(queue.push(5) == .enqueued)
        queue.close()
        #expect(queue.push(6) == .closed)
        #expect([queue.pop(), queue.pop(), queue.pop(), queue.pop()] == [2, 3, 5, nil])
    }

    @Test func boundedQueueHandsOffAcrossThreads() async {
        let queue = BoundedQueue(capacity: 4, policy: DropWhenFull<Int>())
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

    @Test func keyframeGateDropsEachStreamUntilItsNextKeyframe() {
        let payload = ArrayPayload(count: 1)
        func packet(_ stream: Int, key: Bool) -> EncodedPacket {
            EncodedPacket(streamID: stream, presentationTime: 0, isKeyframe: key, payload: payload)
        }
        var gate = KeyframeGate()
        var admitted: [String] = []
        // Stream 0 is a picture; stream 1 a sound, whose every packet stands alone.
        for (name, stream, key, room) in [("k1", 0, true, true), ("p1", 0, false, true), ("a1", 1, true, true),
                                          ("p2", 0, false, false), ("a2", 1, true, true), ("p3", 0, false, true),
                                          ("a3", 1, true, false), ("a4", 1, true, true), ("k2", 0, true, true),
                                          ("p4", 0, false, true)] {
            if gate.admits(packet(stream, key: key), hasRoom: room) { admitted.append(name) }
        }
        #expect(admitted == ["k1", "p1", "a1", "a2", "a4", "k2", "p4"])
        var late = KeyframeGate(waitingForKeyframe: true)
        let beforeKeyframe = late.admits(packet(0, key: false), hasRoom: true)
        let keyframe = late.admits(packet(0, key: true), hasRoom: true)
        #expect(!beforeKeyframe && keyframe)
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
        let counters = RunCounters(targetFPS: 30, sinkURLs: ["a.mkv", "udp://h:1"],
                                   renditions: [(name: "1280x720", outputs: ["a.mkv", "udp://h:1"])])
        let rendition = counters.renditions[0]
        var sampler = StatsSampler(counters: counters, time: 0, cpu: 0)
        counters.sources[0].captured.add(31, ordering: .relaxed)
        counters.encode.encoded.add(30, ordering: .relaxed)
        rendition.encoded.add(30, ordering: .relaxed)
        rendition.bytes.add(500_000, ordering: .relaxed)
        counters.sources[0].skipped.add(2, ordering: .relaxed)
        counters.encode.dropped.add(1, ordering: .relaxed)
        counters.sinks[1].dropped.add(4, ordering: .relaxed)
        counters.sinks[0].bytes.add(250_000, ordering: .relaxed)
        for ms in 1...100 { counters.encode.convert.record(nanoseconds: UInt64(ms) * 1_000_000) }
        let first = sampler.interval(time: 2_000_000_000, cpu: 1_000_000_000)
        #expect(first.encodedFPS == 15)
        #expect(first.capturedFPS == 15.5)
        #expect(first.mbps == 2.0)
        #expect(first.cpuCores == 0.5)
        #expect(first.drops == StatsSample.Drops(skipped: 2, noBuffer: 0, encoder: 1, sinks: 4))
        #expect(first.sinks[0].mbps == 1.0)
        #expect(abs(first.stages.convert.p50 - 50) < 0.5)
        #expect(abs(first.stages.convert.p95 - 95) < 0.5)

        counters.encode.encoded.add(30, ordering: .relaxed)
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
        let counters = RunCounters(targetFPS: 30, sinkURLs: ["a.mkv", "b.mkv"],
                                   renditions: [(name: "1920x1080", outputs: ["a.mkv"]),
                                                (name: "640x360", outputs: ["b.mkv"])])
        let (large, small) = (counters.renditions[0], counters.renditions[1])
        var sampler = StatsSampler(counters: counters, time: 0, cpu: 0)
        counters.encode.encoded.add(30, ordering: .relaxed)
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
