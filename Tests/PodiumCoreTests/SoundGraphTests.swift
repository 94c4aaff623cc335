import PodiumCore
import PodiumCoreTesting
import Synchronization
import Testing

/// The run's sound with fake parts, on a clock the test moves: blocks are placed on the timeline by
/// when they were heard, silence fills the time nothing came, the sound ends with the run, and a
/// slow sound encoder drops sound, never pictures.
@Suite struct SoundGraphTests {
    typealias Block = SoundLog.Block
    static let millisecond: UInt64 = 1_000_000

    /// A graph with sound on `clock`, started, with one picture written: an output starts on a
    /// picture's keyframe, and takes the sound from there on.
    func started(_ clock: FakeClock, limits: Run.Limits = .init(), frameInterval: UInt64 = 0) async
        -> (FakeGraph, Task<PodiumError?, Never>) {
        let graph = FakeGraph(limits: limits, sound: true, soundFrameInterval: frameInterval, clock: clock)
        let task = await graph.start()
        graph.source.send()
        #expect(await eventually { graph.outputs[0].hasWritten })
        return (graph, task)
    }

    @Test func blocksArePlacedByWhenTheyWereHeard() async throws {
        let clock = FakeClock()
        let (graph, task) = await started(clock)
        let sound = try #require(graph.sound)
        let origin = graph.run.origin
        sound.deliver(frames: 480, heardAt: origin + 10 * Self.millisecond)
        sound.deliver(frames: 480, heardAt: origin + 20 * Self.millisecond)
        #expect(await eventually { graph.soundLog.taken.count == 2 })
        #expect(graph.soundLog.taken == [Block(position: 480, frames: 480, silent: false),
                                         Block(position: 960, frames: 480, silent: false)])
        #expect(graph.run.counters.sound?.peak == -6, "0.5 is 6 dB below full scale")
        graph.source.end()
        #expect(await task.value == nil)
        // Both streams reached the output, the sound at its places.
        let written = graph.outputs[0].packets
        #expect(written.filter { $0.stream == graph.soundStream }.map(\.presentationTime) == [480, 960])
        #expect(written.contains { $0.stream == graph.streams[0] })
    }

    /// A picture shows what changed over the interval before its slot, half an interval earlier
    /// on average: sound is placed half an interval later than it was heard, to meet it.
    @Test func soundIsPlacedHalfAFrameIntervalLater() async throws {
        let clock = FakeClock()
        let (graph, task) = await started(clock, frameInterval: FrameRate(30).intervalNanoseconds)
        let sound = try #require(graph.sound)
        sound.deliver(frames: 480, heardAt: graph.run.origin + 10 * Self.millisecond)
        #expect(await eventually { graph.soundLog.taken.count == 1 })
        // 10 ms and 16.67 ms: 26.67 ms, 1,279 whole samples.
        #expect(graph.soundLog.taken.first?.position == 1_279)
        graph.source.end()
        #expect(await task.value == nil)
    }

    /// The source delivers nothing (its server went away): silence fills the time up to a quarter
    /// second before now, so the outputs keep getting sound; the live line says so; sound that
    /// comes back takes its place after it.
    @Test func silenceFillsTheTimeNothingCame() async throws {
        let clock = FakeClock()
        let (graph, task) = await started(clock)
        let sound = try #require(graph.sound)
        let counters = try #require(graph.run.counters.sound)
        sound.interrupt()
        #expect(await eventually { counters.reconnecting.load(ordering: .relaxed) })
        clock.advance(by: 1_000 * Self.millisecond)
        #expect(await eventually { graph.soundLog.end == 36_000 }, "filled to 750 ms: \(graph.soundLog.taken)")
        let filled = graph.soundLog.taken
        #expect(filled.filter { !$0.silent }.isEmpty)
        #expect(zip(filled, filled.dropFirst()).allSatisfy { $0.position + Int64($0.frames) == $1.position },
                "one stretch, no gaps: \(filled)")
        #expect(filled.first?.position == 0)
        let silence = counters.silenceFilled.load(ordering: .relaxed)
        #expect(silence == 36_000)

        // Sound that comes late for time silence already filled is left out there.
        sound.deliver(frames: 4_800, heardAt: graph.run.origin + 700 * Self.millisecond)
        #expect(await eventually { graph.soundLog.taken.last?.silent == false })
        #expect(graph.soundLog.taken.last == Block(position: 36_000, frames: 2_400, silent: false))
        sound.deliver(frames: 480, heardAt: graph.run.origin + 800 * Self.millisecond)
        #expect(await eventually { graph.soundLog.taken.last?.position == 38_400 })
        #expect(graph.soundLog.taken.last == Block(position: 38_400, frames: 480, silent: false))
        let reconnecting = counters.reconnecting.load(ordering: .relaxed)
        #expect(!reconnecting, "sound is back")
        graph.source.end()
        #expect(await task.value == nil)
    }

    /// With `--duration 1s`, sound past the end is cut, and the sound reaches the end exactly.
    @Test func theSoundEndsWithTheRun() async throws {
        let clock = FakeClock()
        let (graph, task) = await started(clock, limits: .init(duration: .seconds(1)))
        let sound = try #require(graph.sound)
        let origin = graph.run.origin
        sound.deliver(frames: 960, heardAt: origin + 990 * Self.millisecond)
        sound.deliver(frames: 480, heardAt: origin + 1_010 * Self.millisecond)
        #expect(await eventually { sound.delivered == 2 })
        graph.source.end()
        #expect(await task.value == nil)
        #expect(graph.soundLog.taken == [Block(position: 47_520, frames: 480, silent: false)],
                "the block across the end is cut at it, the one after it left out")
        #expect(graph.soundLog.end == 48_000)
    }

    /// When the run ends before the end of a `--duration` with the sound behind, silence fills
    /// the sound up to when the run stopped.
    @Test func silenceFillsTheSoundToTheEnd() async throws {
        let clock = FakeClock()
        let (graph, task) = await started(clock)
        clock.advance(by: 100 * Self.millisecond)
        graph.source.end()
        #expect(await task.value == nil)
        #expect(graph.soundLog.end == 4_800)
        #expect(graph.soundLog.taken.filter { !$0.silent }.isEmpty)
    }

    /// A sound encoder that stalls: the source never waits (its blocks past the ring's three
    /// seconds are dropped and counted), and pictures go on being encoded.
    @Test func aStalledSoundEncoderDropsSoundNotPictures() async throws {
        let clock = FakeClock()
        let (graph, task) = await started(clock)
        let sound = try #require(graph.sound)
        let counters = try #require(graph.run.counters.sound)
        graph.soundLog.close()
        for index in 0..<40 as Range<UInt64> {
            sound.deliver(frames: 4_800, heardAt: graph.run.origin + index * 100 * Self.millisecond)
        }
        #expect(await eventually { sound.delivered == 40 }, "the source never waited")
        let dropped = counters.dropped.load(ordering: .relaxed)
        #expect(dropped == 9 * 4_800 || dropped == 10 * 4_800, "\(dropped) samples dropped")
        for _ in 0..<5 {
            let before = graph.logs[0].count
            graph.source.send()
            #expect(await eventually { graph.logs[0].count == before + 1 }, "pictures go on")
        }
        graph.soundLog.open()
        #expect(await eventually { graph.soundLog.taken.count >= 30 })
        graph.source.end()
        #expect(await task.value == nil)
    }

    /// No sound server: the run ends before any output opens.
    @Test func aSoundSourceThatCannotOpenEndsTheRunBeforeAnOutputOpens() async {
        let graph = FakeGraph(sound: true, soundFailure: .unavailable("--audio desktop: no sound server answers"))
        let error = await graph.run.run()
        #expect(error?.exitCode == .unavailable)
        let started = graph.run.started.load(ordering: .relaxed)
        #expect(!started)
        #expect(!graph.outputs[0].isOpen, "nothing was opened or written")
    }
}
