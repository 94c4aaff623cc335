import Foundation
import Logging
import PodiumCore
import PodiumTestSupport
@testable import PodiumX11
import Testing

@Suite struct ScreenGrabberTests {
    let logger = Logger(label: "test")

    /// Grabs `region` once and returns its bytes with the undefined alpha byte cleared.
    func grab(_ connection: XConnection, region: PixelRect, shm: Bool) throws -> (ScreenGrabber.Method, [UInt8]) {
        let capture = ScreenCapture(connection: connection, region: region, allowSharedMemory: shm, drawCursor: false,
                                    logger: logger)
        guard case .frame(let frame) = try capture.capture(sequence: 0, time: 0) else { throw TestFailure("no frame") }
        defer { frame.buffer.share(with: 0) }
        let bytes = UnsafeRawBufferPointer(start: frame.buffer.bytes, count: region.width * region.height * 4)
        return (capture.method, bytes.enumerated().map { $0.offset % 4 == 3 ? 255 : $0.element })
    }

    func expected(_ pattern: TestPattern, region: PixelRect) -> [UInt8] {
        var bytes: [UInt8] = []
        for y in region.y..<region.maxY {
            let start = (y * pattern.width + region.x) * 4
            bytes += pattern.bgra[start..<(start + region.width * 4)]
        }
        return bytes
    }

    @Test(arguments: [true, false])
    func knownPixelsComeBackExactly(sharedMemory: Bool) throws {
        let server = try XvfbServer(width: 320, height: 240)
        let pattern = TestPattern(width: 320, height: 240, seed: 3)
        try Painter(display: server.display).draw(pattern)
        let connection = try XConnection(display: server.display)
        try connection.requireBGRAPixels()
        let whole = PixelRect(x: 0, y: 0, width: 320, height: 240)
        let (method, pixels) = try grab(connection, region: whole, shm: sharedMemory)
        #expect(method == (sharedMemory ? .sharedMemory : .getImage))
        #expect(difference(pixels, pattern.bgra) == nil)
        // An odd-sized region at an odd offset.
        let region = PixelRect(x: 33, y: 17, width: 101, height: 77)
        #expect(difference(try grab(connection, region: region, shm: sharedMemory).1,
                           expected(pattern, region: region)) == nil)
    }

    @Test func serverWithoutSharedMemoryStillCaptures() throws {
        let server = try XvfbServer(width: 200, height: 100, arguments: ["-extension", "MIT-SHM"])
        let pattern = TestPattern(width: 200, height: 100, seed: 1)
        try Painter(display: server.display).draw(pattern)
        let connection = try XConnection(display: server.display)
        let (method, pixels) = try grab(connection, region: PixelRect(x: 0, y: 0, width: 200, height: 100), shm: true)
        #expect(method == .getImage)
        #expect(difference(pixels, pattern.bgra) == nil)
        #expect(!connection.isBroken, "no MIT-SHM request reached a server without the extension")
    }

    @Test func sixteenBitDisplayIsRefusedClearly() throws {
        let server = try XvfbServer(width: 200, height: 100, depth: 16)
        let connection = try XConnection(display: server.display)
        let error = #expect(throws: PodiumError.self) { try connection.requireBGRAPixels() }
        #expect(error?.exitCode == .unavailable)
        #expect(error?.message.contains("16-bit") == true)
    }

    @Test func layoutReportsTheScreenAndItsMonitor() throws {
        let server = try XvfbServer(width: 640, height: 360)
        let layout = try XConnection(display: server.display).layout()
        #expect(layout.size == PixelSize(width: 640, height: 360))
        #expect(layout.depth == 24)
        #expect(layout.monitors.first?.rect == PixelRect(x: 0, y: 0, width: 640, height: 360))
    }

    @Test func missingDisplayIsUnavailable() {
        let error = #expect(throws: PodiumError.self) { try XConnection(display: ":9999") }
        #expect(error?.exitCode == .unavailable)
    }

    @Test func cursorBlendsWithPremultipliedAlpha() {
        #expect(PixelBlend.over(0x0000_0000, 0xFF12_3456) == 0xFF12_3456, "transparent leaves the frame")
        #expect(PixelBlend.over(0xFFFF_FFFF, 0xFF12_3456) == 0xFFFF_FFFF, "opaque replaces it")
        // Half-transparent black over white: each channel 0 + 255 × 127 / 255.
        #expect(PixelBlend.over(0x8000_0000, 0xFFFF_FFFF) == 0xFF7F_7F7F)
        // Premultiplied half-white (0x80 in each channel) over black stays 0x80.
        #expect(PixelBlend.over(0x8080_8080, 0xFF00_0000) == 0xFF80_8080)
    }

    /// With damage tracking: nothing grabbed while nothing changes; after changes, each buffer the
    /// pool hands out is brought up to date by grabbing only changed rows, and matches the screen exactly.
    @Test func damageGrabsOnlyWhatChangedAndStaysExact() throws {
        let server = try XvfbServer(width: 320, height: 240)
        let painter = try Painter(display: server.display)
        try painter.draw(TestPattern(width: 320, height: 240, seed: 5))
        let connection = try XConnection(display: server.display)
        let capture = ScreenCapture(connection: connection, region: PixelRect(x: 0, y: 0, width: 320, height: 240),
                                    allowSharedMemory: true, drawCursor: false, tracksDamage: true, bufferCount: 3,
                                    logger: logger)
        func take(evenIfUnchanged: Bool = false) throws -> [UInt8]? {
            connection.sync()
            Thread.sleep(forTimeInterval: 0.05)
            switch try capture.capture(sequence: 0, time: 0, evenIfUnchanged: evenIfUnchanged) {
            case .frame(let frame):
                defer { frame.buffer.share(with: 0) }
                let bytes = UnsafeRawBufferPointer(start: frame.buffer.bytes, count: 320 * 240 * 4)
                return bytes.enumerated().map { $0.offset % 4 == 3 ? 255 : $0.element }
            case .unchanged, .repainted:
                return nil
            case .busy, .waiting, .ended:
                throw TestFailure("no buffer")
            }
        }
        #expect(try take() != nil, "the first frame is grabbed")
        #expect(try take() == nil, "an unchanged screen is not grabbed")
        #expect(try take(evenIfUnchanged: true) != nil, "the idle repeat is")
        // Small changes in different rows; buffers rotate, each must end up exactly the screen.
        for (step, y) in [10, 200, 57, 123, 10, 230].enumerated() {
            let patch = TestPattern(width: 40, height: 7, seed: 20 + step)
            try painter.draw(patch, x: 13 * step, y: y)
            let shown = try #require(try take(), "a change is grabbed")
            #expect(difference(shown, try Tools.grabScreen(server.display, width: 320, height: 240)) == nil,
                    "step \(step)")
        }
    }
}
