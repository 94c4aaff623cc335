import PodiumCore
import PodiumCoreTesting
import Synchronization
import Testing

/// The run's sound with fake parts, on a clock the test moves: blocks are placed on the timeline by
/// when they were heard, silence fills the time nothing came, the sound ends with the run, and a
/// slow sound encoder drops sound, never pictures.
@Suite struct SoundGraphTests {
    typealias Block = SoundLog.Block
    typealias Stretch = SoundLog.Stretch
    static let millisecond: UInt64 = 1_000_000

    /// A graph with sound on `clock`, started, with one picture written: an output starts on a
    /// picture's keyframe, and takes the sound from there on.
    func started(_ clock: FakeClock, limits: Run.Limits = .init(), frameInterval: UInt64 = 0, gains: [Float] = [1])
        async -> (FakeGraph, Task<PodiumError?, Never>) {
        let graph = FakeGraph(limits: limits, sound: true, soundGains: gains, soundFrameInterval: frameInterval,
                              clock: clock)
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
        #expect(await eventually { graph.soundLog.end == 1_440 })
        #expect(graph.soundLog.track == [Stretch(0..<480, 0), Stretch(480..<1_440, 0.5)],
                "silence before the first block, then the sound at its places")
        #expect(graph.run.counters.sound?.peak == -6, "0.5 is 6 dB below full scale")
        #expect(graph.run.counters.sound?.sources.first?.peak == -6)
        graph.source.end()
        #expect(await task.value == nil)
        // Both streams reached the output, the sound from the timeline's start.
        let written = graph.outputs[0].packets
        #expect(written.filter { $0.stream == graph.soundStream }.map(\.presentationTime) == [0, 960])
        #expect(written.contains { $0.stream == graph.streams[0] })
    }

    /// A picture shows what changed over the interval before its slot, half an interval earlier
    /// on average: sound is placed half an interval later than it was heard, to meet it.
    @Test func soundIsPlacedHalfAFrameIntervalLater() async throws {
        let clock = FakeClock()
        let (graph, task) = await started(clock, frameInterval: FrameRate(30).intervalNanoseconds)
        let sound = try #require(graph.sound)
        sound.deliver(frames: 480, heardAt: graph.run.origin + 10 * Self.millisecond)
        #expect(await eventually { graph.soundLog.end == 1_279 + 480 })
        // 10 ms and 16.67 ms: 26.67 ms, 1,279 whole samples.
        #expect(graph.soundLog.track.last == Stretch(1_279..<1_759, 0.5))
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
        #expect(await eventually { counters.reconnecting })
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
        #expect(!counters.reconnecting, "sound is back")
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
        #expect(graph.soundLog.track == [Stretch(0..<47_520, 0), Stretch(47_520..<48_000, 0.5)],
                "the block across the end is cut at it, the one after it left out")
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

    /// Two sources are summed at their gains where both have sound; the mix waits for the one
    /// that is behind.
    @Test func twoSourcesAreMixedAtTheirGains() async throws {
        let clock = FakeClock()
        let (graph, task) = await started(clock, gains: [1, 0.5])
        let origin = graph.run.origin
        graph.sounds[0].deliver(frames: 480, value: 0.5, heardAt: origin + 10 * Self.millisecond)
        #expect(await eventually { graph.sounds[0].delivered == 1 })
        try await Task.sleep(for: .milliseconds(50))
        #expect(graph.soundLog.taken.isEmpty, "the mix waits for the second source")
        graph.sounds[1].deliver(frames: 960, value: 0.5, heardAt: origin + 10 * Self.millisecond)
        #expect(await eventually { graph.soundLog.end == 960 })
        #expect(graph.soundLog.track == [Stretch(0..<480, 0), Stretch(480..<960, 0.75)],
                "0.5, and 0.5 at half its level; the second source's last 480 wait for the first")
        clock.advance(by: 30 * Self.millisecond)
        graph.source.end()
        #expect(await task.value == nil)
        #expect(graph.soundLog.track.last == Stretch(960..<1_440, 0.25), "the end fills the first with silence")
    }

    /// A mix louder than full scale is held at full scale, not wrapped.
    @Test func aMixStaysWithinFullScale() async throws {
        let clock = FakeClock()
        let (graph, task) = await started(clock, gains: [1, 1])
        let origin = graph.run.origin
        graph.sounds[0].deliver(frames: 480, value: 0.75, heardAt: origin)
        graph.sounds[1].deliver(frames: 480, value: 0.75, heardAt: origin)
        #expect(await eventually { graph.soundLog.end == 480 })
        #expect(graph.soundLog.track == [Stretch(0..<480, 1)])
        graph.source.end()
        #expect(await task.value == nil)
    }

    /// A source that went quiet (its server went away) does not hold the other back for more
    /// than the time before silence stands in for it; the live line names it.
    @Test func aSilentSourceDoesNotHoldTheMixBack() async throws {
        let clock = FakeClock()
        let (graph, task) = await started(clock, gains: [1, 1])
        let origin = graph.run.origin
        graph.sounds[1].interrupt()
        for index in 0..<10 as Range<UInt64> {
            graph.sounds[0].deliver(frames: 4_800, value: 0.5, heardAt: origin + index * 100 * Self.millisecond)
        }
        #expect(await eventually { graph.sounds[0].delivered == 10 })
        clock.advance(by: 1_000 * Self.millisecond)
        graph.sounds[0].deliver(frames: 480, value: 0.5, heardAt: origin + 1_000 * Self.millisecond)
        #expect(await eventually { graph.soundLog.end == 36_000 }, "mixed to 750 ms: \(graph.soundLog.track)")
        #expect(graph.soundLog.track == [Stretch(0..<36_000, 0.5)])
        let counters = try #require(graph.run.counters.sound)
        #expect(counters.sources.map { $0.reconnecting.load(ordering: .relaxed) } == [false, true])
        graph.source.end()
        #expect(await task.value == nil)
    }

    /// No sound server: the run ends before any output opens.
    @Test func aSoundSourceThatCannotOpenEndsTheRunBeforeAnOutputOpens() async {
        let graph = FakeGraph(sound: true,
                              soundFailure: .unavailable("no sound server answers", about: .sound("desktop")))
        let error = await graph.run.run()
        #expect(error?.exitCode == .unavailable)
        let started = graph.run.started.load(ordering: .relaxed)
        #expect(!started)
        #expect(!graph.outputs[0].isOpen, "nothing was opened or written")
    }
}
