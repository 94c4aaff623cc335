import Foundation
import PodiumCore
import Synchronization
import Testing

/// The hub with sinks that only record what they get (pure logic, no FFmpeg).
@Suite struct PacketHubTests {
    final class RecordingSink: PacketSink {
        let isRequired: Bool
        let received = Mutex<[Int64]>([])
        let keyframes = Mutex<[Bool]>([])
        init(required: Bool = true) { isRequired = required }
        func start(_ streams: [StreamDescription]) {}
        func offer(_ packet: EncodedPacket) {
            received.withLock { $0.append(packet.presentationTime) }
            keyframes.withLock { $0.append(packet.isKeyframe) }
        }
        func close() {}
    }

    static let stream = StreamDescription(id: 0, codec: .h264, size: PixelSize(width: 64, height: 48),
                                          timeScale: 1_000_000, framesPerSecond: 30, colors: ColorTags(range: .limited))
    let payload = ArrayPayload(count: 100)

    func packet(_ time: Int64, keyframe: Bool) -> EncodedPacket {
        EncodedPacket(streamID: 0, presentationTime: time, isKeyframe: keyframe, payload: payload)
    }

    @Test func aNewcomerStartsOnAKeyframeAndAsksForOne() throws {
        let hub = PacketHub(streams: [Self.stream])
        #expect(!hub.takeKeyframeRequest())
        let first = RecordingSink()
        try hub.subscribe(first)
        #expect(hub.takeKeyframeRequest(), "joining asks the encoder for a keyframe")
        #expect(!hub.takeKeyframeRequest(), "reading clears the request")
        hub.publish(packet(0, keyframe: false))
        hub.publish(packet(1, keyframe: true))
        hub.publish(packet(2, keyframe: false))
        let second = RecordingSink()
        try hub.subscribe(second)
        hub.publish(packet(3, keyframe: false))
        hub.publish(packet(4, keyframe: true))
        hub.publish(packet(5, keyframe: false))
        #expect(first.received.withLock { $0 } == [1, 2, 3, 4, 5])
        #expect(second.received.withLock { $0 } == [4, 5])
        #expect(second.keyframes.withLock { $0.first } == true)
    }

    @Test func anUnsubscribedSinkGetsNothingMore() throws {
        let hub = PacketHub(streams: [Self.stream])
        let (staying, leaving) = (RecordingSink(), RecordingSink(required: false))
        try hub.subscribe(staying)
        try hub.subscribe(leaving)
        hub.publish(packet(0, keyframe: true))
        hub.unsubscribe(leaving)
        hub.publish(packet(1, keyframe: false))
        #expect(hub.count == 1)
        #expect(staying.received.withLock { $0 } == [0, 1])
        #expect(leaving.received.withLock { $0 } == [0])
    }

    /// Sinks come and go on other threads while one thread publishes: every sink that stayed
    /// gets an unbroken run of packets from a keyframe on.
    @Test func subscribersComeAndGoWhilePublishing() async throws {
        let hub = PacketHub(streams: [Self.stream])
        let steady = RecordingSink()
        try hub.subscribe(steady)
        let publishing = Task.detached {
            for time in 0..<20_000 as Range<Int64> { hub.publish(packet(time, keyframe: time % 50 == 0)) }
        }
        let churning = Task.detached {
            for _ in 0..<500 {
                let guest = RecordingSink(required: false)
                try hub.subscribe(guest)
                hub.unsubscribe(guest)
                let times = guest.received.withLock { $0 }
                if let first = times.first { #expect(first % 50 == 0, "a guest starts on a keyframe") }
                #expect(zip(times, times.dropFirst()).allSatisfy { $1 == $0 + 1 }, "a guest misses nothing between")
            }
        }
        await publishing.value
        try await churning.value
        #expect(steady.received.withLock { $0 } == Array(0..<20_000))
        #expect(hub.count == 1)
    }
}
