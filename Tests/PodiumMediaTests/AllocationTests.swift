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
    /// Grabs 220 frames of a 640x480 test pattern, each passed to `work`, and counts the heap
    /// allocations on this thread after the first 20 (which fill the pools and set things up).
    /// - Returns: allocations a frame, and what one bare libxcb round trip makes.
    private func allocations(damageTracking: Bool, _ work: (CapturedFrame) throws -> Void) throws
        -> (perFrame: Double, roundTrip: Int) {
        let server = try XvfbServer(width: 640, height: 480)
        try Painter(display: server.display).draw(TestPattern(width: 640, height: 480, seed: 5))
        let connection = try XConnection(display: server.display)
        let capture = ScreenCapture(connection: connection, region: PixelRect(x: 0, y: 0, size: Self.size),
                                    allowSharedMemory: true, drawCursor: false, tracksDamage: damageTracking,
                                    bufferCount: 4, logger: Logger(label: "test"))
        var allocations = 0
        for sequence in 0..<220 as Range<UInt64> {
            let start = podium_allocations_on_this_thread()
            // Every frame is taken, changed or not: with damage tracking an unchanged screen is not grabbed at all.
            guard case .frame(let frame) = try capture.capture(sequence: sequence, time: sequence * 33_000_000,
                                                               evenIfUnchanged: true) else {
                throw TestFailure("no frame at \(sequence)")
            }
            frame.buffer.share(with: 1)
            try work(frame)
            frame.buffer.release()
            if sequence >= 20 { allocations += podium_allocations_on_this_thread() - start }
        }
        let start = podium_allocations_on_this_thread()
        connection.sync()
        return (Double(allocations) / 200, podium_allocations_on_this_thread() - start)
    }

    private static let size = PixelSize(width: 640, height: 480)

    @Test(arguments: [false, true])
    func grabAndConvertAllocateNothingOfTheirOwn(damageTracking: Bool) throws {
        let converter = try PictureConverter(source: Self.size, sizes: [Self.size], count: 4, filter: .box)
        let measured = try allocations(damageTracking: damageTracking) { frame in
            guard let picture = try converter.convert(frame) else { throw TestFailure("no picture free") }
            picture.share(with: 1)
            picture.release()
        }
        #expect(measured.roundTrip > 0, "the counter sees libxcb's allocations")
        #expect(measured.perFrame <= Double(damageTracking ? 0 : measured.roundTrip),
                "\(measured.perFrame) allocations a frame; a round trip makes \(measured.roundTrip)")
    }

    /// With several encodings, converting once and scaling to each size allocates nothing either.
    @Test func convertingOnceAndScalingAllocateNothing() throws {
        let smaller = [PixelSize(width: 160, height: 120), PixelSize(width: 320, height: 240)]
        let converter = try PictureConverter(source: Self.size, sizes: [Self.size] + smaller, count: 4, filter: .box)
        #expect(converter.sizes.map(\.width) == [640, 320, 160], "largest first, each scaled from the next larger")
        let measured = try allocations(damageTracking: true) { frame in
            guard let picture = try converter.convert(frame), let large = converter.scaled(1)?.picture,
                  let small = converter.scaled(2)?.picture else {
                throw TestFailure("no picture free")
            }
            picture.share(with: 1)
            picture.release()
            large.share(with: 1)
            large.release()
            small.share(with: 1)
            small.release()
        }
        #expect(measured.perFrame == 0, "\(measured.perFrame) allocations a frame")
    }
}

/// Publishing a packet on the hub allocates nothing, whatever the number of sinks.
@Suite struct PacketHubAllocationTests {
    final class CountingSink: PacketSink {
        let count = Atomic<Int>(0)
        func offer(_ packet: EncodedPacket) { count.add(1, ordering: .relaxed) }
    }

    @Test func publishingAllocatesNothing() throws {
        let hub = StreamHub()
        let stream = hub.addStream()
        let sinks = (0..<4).map { _ in CountingSink() }
        for sink in sinks { hub.subscribe(sink, to: Program(streams: [stream])) }
        let payload = ArrayPayload(count: 1_000)
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
