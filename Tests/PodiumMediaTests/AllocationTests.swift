import CAllocationCounter
import Logging
import PodiumCore
@testable import PodiumMedia
import PodiumTestSupport
import PodiumX11
import Synchronization
import Testing

/// The hot path, grab → convert, makes no heap allocation of its own in steady state. libxcb
/// allocates for every round trip (it reads each reply into memory of its own), so a frame may
/// cost what one bare round trip costs, and no more.
@Suite struct AllocationTests {
    @Test(arguments: [false, true])
    func grabAndConvertAllocateNothingOfTheirOwn(damageTracking: Bool) throws {
        let server = try XvfbServer(width: 640, height: 480)
        try Painter(display: server.display).draw(TestPattern(width: 640, height: 480, seed: 5))
        let connection = try XConnection(display: server.display)
        let size = PixelSize(width: 640, height: 480)
        let capture = ScreenCapture(connection: connection, region: PixelRect(x: 0, y: 0, size: size), allowSharedMemory: true, drawCursor: false,
                                    tracksDamage: damageTracking, bufferCount: 4, logger: Logger(label: "test"))
        let encoder = try VideoEncoder(settings: EncoderSettings(codec: .h264, size: size, framesPerSecond: 30), sourceSize: size, globalHeader: false)

        var allocations = 0
        for sequence in 0..<220 as Range<UInt64> {
            let start = podium_allocations_on_this_thread()
            // Every frame is taken, changed or not: with damage tracking an unchanged screen is not grabbed at all.
            guard case .frame(let frame) = try capture.capture(sequence: sequence, time: sequence * 33_000_000, evenIfUnchanged: true) else {
                throw TestFailure("no frame at \(sequence)")
            }
            frame.buffer.share(with: 1)
            try encoder.convert(frame)
            frame.buffer.release()
            // The first frames fill the pool and set things up.
            if sequence >= 20 { allocations += podium_allocations_on_this_thread() - start }
        }
        let start = podium_allocations_on_this_thread()
        connection.sync()
        let roundTrip = podium_allocations_on_this_thread() - start
        #expect(roundTrip > 0, "the counter sees libxcb's allocations")
        let perFrame = Double(allocations) / 200
        #expect(perFrame <= Double(damageTracking ? 0 : roundTrip), "\(perFrame) allocations a frame; a round trip makes \(roundTrip)")
    }
}

/// With several encodings, converting once and scaling to each size allocates nothing either.
@Suite struct LadderAllocationTests {
    @Test func convertingOnceAndScalingAllocateNothing() throws {
        let server = try XvfbServer(width: 640, height: 480)
        let painter = try Painter(display: server.display)
        try painter.draw(TestPattern(width: 640, height: 480, seed: 6))
        let connection = try XConnection(display: server.display)
        let size = PixelSize(width: 640, height: 480)
        let capture = ScreenCapture(connection: connection, region: PixelRect(x: 0, y: 0, size: size), allowSharedMemory: true,
                                    drawCursor: false, tracksDamage: true, bufferCount: 4, logger: Logger(label: "test"))
        let converter = try PictureConverter(size: size, scaledTo: [PixelSize(width: 160, height: 120), PixelSize(width: 320, height: 240)],
                                             count: 4, filter: .box)
        #expect(converter.sizes.map(\.width) == [640, 320, 160], "largest first, each scaled from the next larger")
        var allocations = 0
        for sequence in 0..<220 as Range<UInt64> {
            let start = podium_allocations_on_this_thread()
            guard case .frame(let frame) = try capture.capture(sequence: sequence, time: sequence * 33_000_000, evenIfUnchanged: true) else {
                throw TestFailure("no frame at \(sequence)")
            }
            frame.buffer.share(with: 1)
            guard let picture = try converter.convert(frame) else { throw TestFailure("no picture free") }
            guard let large = converter.scaled(1), let small = converter.scaled(2) else { throw TestFailure("none free") }
            let scaled = (large, small)
            frame.buffer.release()
            picture.share(with: 1)
            picture.release()
            scaled.0.share(with: 1)
            scaled.0.release()
            scaled.1.share(with: 1)
            scaled.1.release()
            if sequence >= 20 { allocations += podium_allocations_on_this_thread() - start }
        }
        #expect(allocations == 0, "\(Double(allocations) / 200) allocations a frame")
    }
}

/// Publishing a packet to the hub allocates nothing, whatever the number of sinks.
@Suite struct PacketHubAllocationTests {
    final class Bytes: PacketPayload {
        let byteCount = 1_000
    }

    final class CountingSink: PacketSink {
        let isRequired = true
        let count = Atomic<Int>(0)
        func start(_ streams: [StreamDescription]) {}
        func offer(_ packet: EncodedPacket) { count.add(1, ordering: .relaxed) }
        func close() {}
    }

    @Test func publishingAllocatesNothing() throws {
        let stream = StreamDescription(id: 0, codec: .h264, size: PixelSize(width: 64, height: 48),
                                       timeScale: 1_000_000, framesPerSecond: 30, colors: ColorTags(range: .limited))
        let hub = PacketHub(streams: [stream])
        let sinks = (0..<4).map { _ in CountingSink() }
        for sink in sinks { try hub.subscribe(sink) }
        let payload = Bytes()
        hub.publish(EncodedPacket(streamID: 0, presentationTime: 0, isKeyframe: true, payload: payload))
        let start = podium_allocations_on_this_thread()
        // A plain loop: an unoptimized build allocates to iterate a range of Int64.
        var time: Int64 = 1
        while time <= 1_000 {
            let isKeyframe = time % 60 == 0
            let packet = EncodedPacket(streamID: 0, presentationTime: time, isKeyframe: isKeyframe, payload: payload)
            hub.publish(packet)
            time += 1
        }
        #expect(podium_allocations_on_this_thread() - start == 0)
        #expect(sinks.allSatisfy { $0.count.load(ordering: .relaxed) == 1_001 })
    }
}
