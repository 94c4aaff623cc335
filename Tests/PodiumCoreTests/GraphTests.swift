import PodiumCore
import PodiumCoreTesting
import Synchronization
import Testing

/// The graph's rules, with fake parts in-process: a push source the test drives frame by frame,
/// the encode stage with fake encoders (one of which the test can stall), recording outputs.
@Suite struct GraphTests {
    static let grid = FrameGrid(fps: FrameRate(30))

    func hasStarted(_ run: Run) -> Bool { run.started.load(ordering: .relaxed) }

    /// Sends `count` frames, each once the encoders of `logs` have encoded the one before.
    func send(_ graph: FakeGraph, _ count: Int, waitingFor logs: [EncoderLog]) async {
        for _ in 0..<count {
            let before = logs.map(\.count)
            graph.source.send()
            #expect(await eventually { zip(logs, before).allSatisfy { $0.count > $1 } })
        }
    }

    @Test func aSlowRenditionDropsOnlyItsOwnFrames() async {
        let graph = FakeGraph(levels: [0, 1], outputs: [(0, nil, nil), (1, nil, nil)])
        let (fast, slow) = (graph.logs[0], graph.logs[1])
        let run = await graph.start()
        await send(graph, 1, waitingFor: [fast, slow])
        slow.close()
        await send(graph, 20, waitingFor: [fast])
        slow.open()
        graph.source.end()
        #expect(await run.value == nil)
        #expect(fast.count == 21, "the fast encoder encoded every frame")
        #expect(graph.counters.renditions[0].dropped.load(ordering: .relaxed) == 0)
        // The slow one took the first frame after the stall and was stuck in it; the others
        // replaced one another in its slot, and it encoded the last when it could again.
        #expect(slow.count == 3)
        #expect(graph.counters.renditions[1].dropped.load(ordering: .relaxed) == 18)
        #expect(graph.counters.encode.dropped.load(ordering: .relaxed) == 0, "conversion never waited")
        #expect(graph.counters.encode.encoded.load(ordering: .relaxed) == 21)
        #expect(graph.outputs[0].packets.count == 21)
        #expect(graph.outputs[1].packets.count == 3)
    }

    /// Keyframes every 200 ms on the grid (every 6th frame at 30 fps): an encoder that falls
    /// behind keeps the scheduled keyframe waiting rather than a newer frame, so every rendition's
    /// keyframes, and their segments, start at the same frames.
    @Test func renditionsKeyframesAlignWhenOneFallsBehind() async {
        let graph = FakeGraph(levels: [0, 1], keyframeInterval: .milliseconds(200),
                              outputs: [(0, nil, nil), (1, nil, nil)])
        let (fast, slow) = (graph.logs[0], graph.logs[1])
        let run = await graph.start()
        await send(graph, 1, waitingFor: [fast, slow])
        slow.close()
        await send(graph, 9, waitingFor: [fast])
        slow.open()
        #expect(await eventually { slow.count == 3 })
        await send(graph, 10, waitingFor: [fast, slow])
        graph.source.end()
        #expect(await run.value == nil)
        let keyframes = [0, 6, 12, 18].map { Self.grid.offset(ofSlot: $0) }
        #expect(fast.keyframeTimes == keyframes)
        #expect(slow.keyframeTimes == keyframes, "the same frames, though it dropped frames 2 to 5 and 7 to 9")
        #expect(slow.encoded.map(\.slotTime).contains(Self.grid.offset(ofSlot: 6)))
        #expect(!slow.encoded.map(\.slotTime).contains(Self.grid.offset(ofSlot: 9)))
    }

    /// A guest that joins mid-run (a listener's client, a viewer) asks for a keyframe and gets
    /// its first packet at once, a keyframe, without moving the schedule.
    @Test func aGuestStartsOnAKeyframeAtOnce() async {
        let graph = FakeGraph(keyframeInterval: .seconds(10))
        let encoder = graph.logs[0]
        let run = await graph.start()
        await send(graph, 5, waitingFor: [encoder])
        let guest = RecordingSink(program: Program(streams: [graph.streams[0]]))
        graph.hub.subscribe(guest, to: guest.program)
        await send(graph, 3, waitingFor: [encoder])
        graph.source.end()
        #expect(await run.value == nil)
        #expect(encoder.keyframeTimes == [0, Self.grid.offset(ofSlot: 5)], "the schedule's, and the guest's")
        #expect(guest.packets.count == 3)
        #expect(guest.packets.first?.isKeyframe == true)
        #expect(graph.outputs[0].packets.count == 8, "the recording goes on undisturbed")
    }

    @Test func theLastRequiredOutputFailingEndsTheRunWith74() async {
        let graph = FakeGraph(outputs: [(0, nil, 3), (0, nil, 6)])
        let encoder = graph.logs[0]
        let run = await graph.start()
        await send(graph, 4, waitingFor: [encoder])
        #expect(await eventually { graph.outputs[0].hasFailed })
        #expect(!graph.run.isStopping, "one output failing ends nothing")
        await send(graph, 2, waitingFor: [encoder])
        let error = await run.value
        #expect(error?.exitCode == .io)
        #expect(error?.message == "every output failed; stopping")
        #expect(graph.outputs[1].packets.count == 6)
    }

    @Test func aFileThatCannotBeCreatedEndsTheRunBeforeCapture() async {
        let failure = PodiumError.cannotCreate("cannot be created", about: .output("x.mkv"))
        let graph = FakeGraph(outputs: [(0, failure, nil), (0, nil, nil)])
        let error = await graph.run.run()
        #expect(error == failure, "the executable words its subject")
        #expect(!hasStarted(graph.run))
        #expect(graph.logs[0].count == 0)
    }

    @Test func aSourceOrEncoderThatCannotOpenEndsTheRunBeforeAnOutputOpens() async {
        for graph in [FakeGraph(sourceFailure: .unavailable("cannot open X display ':9'")),
                      FakeGraph(encoderFailure: .usage("not a preset of libx264", about: .preset("warp9")))] {
            let error = await graph.run.run()
            #expect(error != nil)
            #expect(!hasStarted(graph.run))
            #expect(!graph.outputs[0].isOpen, "nothing was opened or written")
        }
    }

    /// `--frames 5` with two encoders: five frames in each, counted once, by the encode stage.
    @Test func framesAreCountedOnceAcrossRenditions() async {
        let graph = FakeGraph(levels: [0, 1], outputs: [(0, nil, nil), (1, nil, nil)], limits: .init(frames: 5))
        let run = await graph.start()
        await send(graph, 5, waitingFor: graph.logs)
        graph.source.send(5)
        #expect(await run.value == nil)
        #expect(graph.logs.map(\.count) == [5, 5])
        #expect(graph.counters.encode.encoded.load(ordering: .relaxed) == 5)
        #expect(graph.outputs.map(\.packets.count) == [5, 5])
    }

    @Test func aPausedRunSendsNothing() async {
        let graph = FakeGraph()
        let run = await graph.start()
        graph.run.control.paused.store(true, ordering: .relaxed)
        graph.source.send(5)
        try? await Task.sleep(for: .milliseconds(200))
        #expect(graph.logs[0].count == 0)
        #expect(graph.outputs[0].packets.isEmpty)
        graph.run.control.paused.store(false, ordering: .relaxed)
        await send(graph, 2, waitingFor: graph.logs)
        graph.source.end()
        #expect(await run.value == nil)
        #expect(graph.outputs[0].packets.count == 2)
    }

    /// Packets are stamped on the grid, a frame interval long each, whenever their frames were
    /// grabbed; latency still counts from the grab.
    @Test func packetTimesAreOnTheGridAndLatencyFromTheGrab() async {
        let graph = FakeGraph()
        let run = await graph.start()
        let slots: [UInt64] = [0, 1, 2, 5, 6, 30]
        for slot in slots {
            let before = graph.logs[0].count
            graph.source.send(slots: [slot])
            #expect(await eventually { graph.logs[0].count > before })
        }
        graph.source.end()
        #expect(await run.value == nil)
        let packets = graph.outputs[0].packets
        #expect(packets.map(\.presentationTime) == slots.map { Int64(Self.grid.offset(ofSlot: $0) / 1_000) })
        #expect(packets.allSatisfy { $0.duration == 33_333 })
        #expect(graph.counters.renditions[0].latency.run.count == slots.count, "every packet found its grab time")
    }

    /// A run that ends on a still picture holds it to the end: the last picture is encoded again
    /// at the last slot, so the recording lasts as long as the run.
    @Test func aStillPictureIsHeldToTheEndOfTheRun() async {
        let graph = FakeGraph()
        let run = await graph.start()
        await send(graph, 2, waitingFor: graph.logs)
        graph.source.end(atSlot: 89)
        #expect(await run.value == nil)
        let times = graph.outputs[0].packets.map(\.presentationTime)
        #expect(times == [0, 33_333, 2_966_666])
        // 2.966666 s and one frame's 33 333 µs: the run's 3 s.
        #expect((times.last ?? 0) + 33_333 == 2_999_999)
    }
}
