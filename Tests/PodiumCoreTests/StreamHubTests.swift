import Foundation
import PodiumCore
import PodiumCoreTesting
import Synchronization
import Testing

/// The run's hub with sinks that only record what they get (pure logic, no FFmpeg).
@Suite struct StreamHubTests {
    let payload = ArrayPayload(count: 100)

    func packet(_ time: Int64, keyframe: Bool, stream: Int = 0) -> EncodedPacket {
        EncodedPacket(streamID: stream, presentationTime: time, isKeyframe: keyframe, payload: payload)
    }

    @Test func aNewcomerStartsOnAKeyframeAndAsksForOne() {
        let hub = StreamHub()
        let stream = hub.addStream()
        #expect(!hub.takeKeyframeRequest(stream: stream))
        let first = RecordingSink(program: Program(streams: [stream]))
        hub.subscribe(first, to: first.program)
        #expect(hub.takeKeyframeRequest(stream: stream), "joining asks the encoder for a keyframe")
        #expect(!hub.takeKeyframeRequest(stream: stream), "reading clears the request")
        hub.publish(packet(0, keyframe: false))
        hub.publish(packet(1, keyframe: true))
        hub.publish(packet(2, keyframe: false))
        let second = RecordingSink(program: Program(streams: [stream]))
        hub.subscribe(second, to: second.program)
        hub.publish(packet(3, keyframe: false))
        hub.publish(packet(4, keyframe: true))
        hub.publish(packet(5, keyframe: false))
        #expect(first.packets.map(\.presentationTime) == [1, 2, 3, 4, 5])
        #expect(second.packets.map(\.presentationTime) == [4, 5])
        #expect(second.packets.first?.isKeyframe == true)
    }

    /// Each output gets the streams of its program and no other; it starts on a keyframe of the
    /// program's first stream (the picture), whatever the others send before it.
    @Test func programsChooseTheirStreams() {
        let hub = StreamHub()
        let (large, small, sound) = (hub.addStream(), hub.addStream(), hub.addStream())
        let largeWithSound = RecordingSink(program: Program(streams: [large, sound]))
        let smallAlone = RecordingSink(program: Program(streams: [small]))
        for sink in [largeWithSound, smallAlone] { hub.subscribe(sink, to: sink.program) }
        #expect(hub.takeKeyframeRequest(stream: large) && hub.takeKeyframeRequest(stream: small))
        #expect(!hub.takeKeyframeRequest(stream: sound), "a keyframe of the picture is what a newcomer waits for")
        hub.publish(packet(0, keyframe: true, stream: sound))
        hub.publish(packet(0, keyframe: true, stream: small))
        hub.publish(packet(1, keyframe: true, stream: large))
        hub.publish(packet(1, keyframe: true, stream: sound))
        hub.publish(packet(2, keyframe: false, stream: large))
        hub.publish(packet(2, keyframe: false, stream: small))
        #expect(largeWithSound.packets.map(\.stream) == [large, sound, large])
        #expect(smallAlone.packets.map(\.stream) == [small, small])
    }

    @Test func anUnsubscribedSinkGetsNothingMore() {
        let hub = StreamHub()
        let stream = hub.addStream()
        let (staying, leaving) = (RecordingSink(program: Program(streams: [stream])),
                                  RecordingSink(program: Program(streams: [stream])))
        hub.subscribe(staying, to: staying.program)
        hub.subscribe(leaving, to: leaving.program)
        hub.publish(packet(0, keyframe: true))
        hub.unsubscribe(leaving)
        hub.publish(packet(1, keyframe: false))
        #expect(hub.count == 1)
        #expect(staying.packets.map(\.presentationTime) == [0, 1])
        #expect(leaving.packets.map(\.presentationTime) == [0])
    }

    @Test func encodersDescribeTheirStreamsAsTheyOpen() {
        let hub = StreamHub()
        let (first, second) = (hub.addStream(), hub.addStream())
        let video = StreamDescription.Video(codec: .h264, size: PixelSize(width: 64, height: 48), framesPerSecond: 30,
                                            colors: ColorTags(range: .limited))
        hub.describe(StreamDescription(id: second, video: video, timeScale: 1_000_000))
        #expect(hub.streams(of: Program(streams: [first, second])).map(\.id) == [second], "not described yet: left out")
        hub.describe(StreamDescription(id: first, video: video, timeScale: 90_000))
        #expect(hub.streams(of: Program(streams: [second, first])).map(\.timeScale) == [1_000_000, 90_000])
    }

    /// Sinks come and go on other threads while one thread publishes: every sink that stayed
    /// gets an unbroken run of packets from a keyframe on.
    @Test func subscribersComeAndGoWhilePublishing() async throws {
        let hub = StreamHub()
        let stream = hub.addStream()
        let program = Program(streams: [stream])
        let steady = RecordingSink(program: program)
        hub.subscribe(steady, to: program)
        let publishing = Task.detached {
            for time in 0..<20_000 as Range<Int64> { hub.publish(packet(time, keyframe: time % 50 == 0)) }
        }
        let churning = Task.detached {
            for _ in 0..<500 {
                let guest = RecordingSink(program: program)
                hub.subscribe(guest, to: program)
                hub.unsubscribe(guest)
                let times = guest.packets.map(\.presentationTime)
                if let first = times.first { #expect(first % 50 == 0, "a guest starts on a keyframe") }
                #expect(zip(times, times.dropFirst()).allSatisfy { $1 == $0 + 1 }, "a guest misses nothing between")
            }
        }
        await publishing.value
        await churning.value
        #expect(steady.packets.map(\.presentationTime) == Array(0..<20_000))
        #expect(hub.count == 1)
    }
}
