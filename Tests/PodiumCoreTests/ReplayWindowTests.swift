@testable import PodiumCore
import Testing

/// What `--replay` keeps: whole groups of pictures from a keyframe, the span asked for and no more,
/// the oldest spilled first once memory is full, and saves that start on a keyframe.
@Suite struct ReplayWindowTests {
    typealias Window = ReplayWindow<Int>

    /// A picture every 100 ms (a keyframe every second) and a sound packet between two, each
    /// `bytes` long; `stored` numbers them.
    static func run(seconds: Int, into window: inout Window, bytes: Int = 1_000, from start: Int = 0) {
        for frame in start * 10..<(start + seconds) * 10 {
            let time = Int64(frame) * 100_000
            window.append(Window.Entry(streamID: 0, presentationTime: Int64(frame), duration: 0, time: time,
                                       isKeyframe: frame % 10 == 0, isPicture: true, byteCount: bytes, stored: frame))
            window.append(Window.Entry(streamID: 1, presentationTime: time / 1_000, duration: 20, time: time + 50_000,
                                       isKeyframe: true, isPicture: false, byteCount: bytes / 10, stored: -frame))
        }
    }

    @Test func keepsTheSpanFromTheKeyframeBeforeItAndNoMore() {
        var window = Window(span: 3_000_000, memoryLimit: .max)
        // Nothing before the first keyframe: a save could not start there.
        window.append(Window.Entry(streamID: 0, presentationTime: 0, duration: 0, time: 0, isKeyframe: false,
                                   isPicture: true, byteCount: 5, stored: 99))
        #expect(window.count == 0)
        Self.run(seconds: 10, into: &window)
        // The newest picture is at 9.9 s: 6.9 s is the span's start, so the group of 6 s is the first.
        #expect(window.saved(last: nil).first?.stored == 60 && window.saved(last: nil).first?.isKeyframe == true)
        #expect(window.heldSpan == 3_900_000)
        #expect(window.count == 2 * 40)
        #expect(window.memoryBytes == 40 * 1_100 && window.spilledBytes == 0)
        // A save of the last 1.5 s starts at the keyframe of 8 s: at least what was asked.
        #expect(window.saved(last: 1_500_000).first?.stored == 80)
        #expect(window.saved(last: 2_000_000).first?.stored == 70, "9.9 s - 2 s = 7.9 s: the group of 7 s")
        #expect(window.saved(last: nil).first?.stored == 60)
        #expect(window.saved(last: 60_000_000).first?.stored == 60, "no more than is kept")
    }

    @Test func spillsTheOldestFirstOnceMemoryIsFullAndLetsGoOfWhatFallsOut() {
        var window = Window(span: 2_000_000, memoryLimit: 10_000)
        Self.run(seconds: 2, into: &window)
        var spilled = 0
        while let index = window.nextToSpill {
            #expect(index == spilled, "oldest first")
            window.spilled(index, as: 1_000_000 + index)
            spilled += 1
        }
        #expect(window.memoryBytes <= 10_000 && window.memoryBytes > 10_000 - 1_100)
        #expect(window.memoryBytes + window.spilledBytes == 20 * 1_100)
        #expect((0..<window.spilledCount).allSatisfy { window[$0].stored >= 1_000_000 })
        // Two more seconds: the first second's group goes, spilled packets first.
        Self.run(seconds: 2, into: &window, from: 2)
        #expect(window.saved(last: nil).first?.time == 1_000_000)
        #expect(window.memoryBytes + window.spilledBytes == 30 * 1_100)
        #expect(window.spilledCount == max(0, spilled - 20))
    }

    @Test func aFullDiskLetsGoOfWholeGroupsButTheNewest() {
        var window = Window(span: 60_000_000, memoryLimit: 1_000)
        Self.run(seconds: 3, into: &window)
        while window.nextToSpill != nil, window.dropOldestGroup() > 0 {}
        #expect(window.saved(last: nil).first?.stored == 20 && window.saved(last: nil).first?.isKeyframe == true)
        #expect(window.memoryBytes == 10 * 1_100, "the newest group stays, over the limit")
        #expect(window.dropOldestGroup() == 0)
    }
}
