import PodiumCore
import Testing

/// A recording paused and resumed: what is written, and where it lands in the file.
@Suite struct PausedTimelineTests {
    /// Pictures every 40 ms (a keyframe every 2 s) and sound every 20 ms, running ahead of them by
    /// 30 ms, as encoders hand them on; paused from 1 s to 3.5 s.
    @Test func thePauseIsCutOutAndTheFileGoesOnFromAKeyframe() {
        var timeline = PausedTimeline()
        var written: [(picture: Bool, at: Int64)] = []
        var packets: [(time: Int64, picture: Bool)] = []
        for tick in 0..<125 { packets.append((Int64(tick) * 40_000, true)) }
        for tick in 0..<250 { packets.append((Int64(tick) * 20_000 + 30_000, false)) }
        // In the order they reach the recording: by time, the sound 30 ms early.
        packets.sort { ($0.picture ? $0.time : $0.time - 30_000) < ($1.picture ? $1.time : $1.time - 30_000) }
        for packet in packets {
            let paused = packet.time >= 1_000_000 && packet.time < 3_500_000
            let keyframe = packet.picture && packet.time % 2_000_000 == 0
            if timeline.admits(time: packet.time, picture: packet.picture, keyframe: keyframe, paused: paused) {
                written.append((packet.picture, packet.time - timeline.cut))
            }
        }
        let pictures = written.filter(\.picture).map(\.at)
        // Up to the pause, then from the keyframe at 4 s, placed where the pause began.
        #expect(Array(pictures.prefix(25)) == Array(stride(from: Int64(0), to: 1_000_000, by: 40_000)))
        #expect(pictures[25] == 1_000_000, "the keyframe takes the first held picture's place")
        #expect(timeline.cut == 3_000_000)
        #expect(zip(pictures, pictures.dropFirst()).allSatisfy { $1 - $0 == 40_000 }, "no gap: \(pictures)")
        #expect(pictures.count == 25 + 25)
        // The sound never goes back in time.
        let sound = written.filter { !$0.picture }.map(\.at)
        #expect(zip(sound, sound.dropFirst()).allSatisfy { $1 > $0 }, "\(sound)")
        #expect(sound.contains { $0 >= 1_000_000 }, "the sound goes on after the pause too")
        #expect(!timeline.awaitsKeyframe)
    }

    /// Nothing cut before a pause; a short pause holds back one packet and the next waits for a keyframe.
    @Test func aPauseThatHeldNothingCutsNothing() {
        var timeline = PausedTimeline()
        let taken = [(0, true), (40_000, false)].map {
            timeline.admits(time: $0.0, picture: true, keyframe: $0.1, paused: false)
        }
        #expect(taken == [true, true] && timeline.cut == 0 && !timeline.awaitsKeyframe)
        let held = timeline.admits(time: 80_000, picture: true, keyframe: false, paused: true)
        #expect(!held && timeline.awaitsKeyframe)
        let needsTheLast = timeline.admits(time: 120_000, picture: true, keyframe: false, paused: false)
        #expect(!needsTheLast, "a picture that needs the one before is not written")
        let keyframe = timeline.admits(time: 160_000, picture: true, keyframe: true, paused: false)
        #expect(keyframe)
        #expect(timeline.cut == 80_000)
    }
}

/// `?split=`: what it reads, and the files it names.
@Suite struct FileSplitTests {
    @Test func lengthsAndSizes() throws {
        #expect(try FileSplit(parsing: "30m") == .every(.seconds(1_800)))
        #expect(try FileSplit(parsing: "2G") == .size(2 << 30))
        #expect(try FileSplit(parsing: "1.5G") == .size(3 << 29))
        #expect(try FileSplit(parsing: "90s").description == "90s")
        #expect(try FileSplit(parsing: "2h").description == "2h")
        #expect(try FileSplit(parsing: "500M").description == "500M")
        for bad in ["0s", "500ms", "100K", "0G", "-2G", "G", "soon", ""] {
            #expect(throws: OptionParseError.self, "\(bad)") { try FileSplit(parsing: bad) }
        }
        #expect(FileSplit.every(.seconds(2)).isFull(microseconds: 2_000_000, bytes: 0))
        #expect(!FileSplit.every(.seconds(2)).isFull(microseconds: 1_999_999, bytes: 1 << 40))
        #expect(FileSplit.size(1 << 20).isFull(microseconds: 0, bytes: 1 << 20))
    }

    @Test func piecesAreNumberedBeforeTheExtension() {
        #expect(FileSplit.piece(1, of: "talk.mkv") == "talk-001.mkv")
        #expect(FileSplit.piece(12, of: "/a.b/talk.v2.mp4") == "/a.b/talk.v2-012.mp4")
        #expect(FileSplit.piece(1000, of: "x.ts") == "x-1000.ts")
    }
}
