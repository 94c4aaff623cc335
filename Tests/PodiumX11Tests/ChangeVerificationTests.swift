import Foundation
import Logging
import PodiumCore
import PodiumTestSupport
@testable import PodiumX11
import Testing

/// Damage is a hint: capture compares what it grabbed with the frame before, and only rows that
/// differ count as changed.
@Suite struct ChangeVerificationTests {
    /// What one look at the screen gave, as the capture loop takes it.
    enum Look: Equatable {
        case frame(changedRows: RowBands?, pixels: [UInt8])
        case unchanged
        case repainted
    }

    /// A private 320x240 screen showing `picture`, captured with damage tracking.
    struct Screen {
        let server: XvfbServer
        let painter: Painter
        let connection: XConnection
        let capture: ScreenCapture
        /// What the test draws, BGRA.
        var picture: [UInt8]

        init(seed: Int) throws {
            server = try XvfbServer(width: 320, height: 240)
            painter = try Painter(display: server.display)
            picture = TestPattern(width: 320, height: 240, seed: seed).bgra
            connection = try XConnection(display: server.display)
            capture = ScreenCapture(connection: connection, region: PixelRect(x: 0, y: 0, width: 320, height: 240),
                                    allowSharedMemory: true, drawCursor: false, tracksDamage: true, bufferCount: 3,
                                    logger: Logger(label: "test"))
            try paint()
        }

        /// Draws the whole picture again: damage everywhere, whatever changed.
        func paint() throws {
            try painter.draw(TestPattern(width: 320, height: 240, bgra: picture))
        }

        /// Inverts one pixel of the picture (drawn at the next `paint`).
        mutating func invert(x: Int, y: Int) {
            let offset = (y * 320 + x) * 4
            for channel in 0..<3 { picture[offset + channel] = 255 - picture[offset + channel] }
        }

        func look(evenIfUnchanged: Bool = false) throws -> Look {
            connection.sync()
            switch try capture.capture(sequence: 0, time: 0, evenIfUnchanged: evenIfUnchanged) {
            case .frame(let frame):
                // Handed to no branch: the buffer goes back at once (capture keeps its own share).
                defer { frame.buffer.share(with: 0) }
                var pixels = [UInt8](UnsafeRawBufferPointer(start: frame.buffer.bytes, count: frame.size.area * 4))
                for alpha in stride(from: 3, to: pixels.count, by: 4) { pixels[alpha] = 255 }
                return .frame(changedRows: frame.changedRows, pixels: pixels)
            case .unchanged:
                return .unchanged
            case .repainted:
                return .repainted
            case .busy, .waiting, .ended:
                throw TestFailure("no buffer")
            }
        }
    }

    /// A repaint with the same pixels is no frame; a repaint of everything that changed three rows
    /// is a frame whose changed rows are those three, and nothing else.
    @Test func aRepaintIsNoFrameAndAChangeIsExactlyItsRows() throws {
        var screen = try Screen(seed: 5)
        #expect(try screen.look() == .frame(changedRows: nil, pixels: screen.picture), "the first frame is the screen")
        try screen.paint()
        #expect(try screen.look() == .repainted, "the same pixels again")
        #expect(try screen.look() == .unchanged, "nothing drawn")
        for y in 100..<103 {
            for x in 50..<(50 + y - 99) { screen.invert(x: x, y: y) }
        }
        try screen.paint()
        #expect(try screen.look() == .frame(changedRows: RowBands(100..<103), pixels: screen.picture))
        // The idle repeat still comes, with nothing changed in it.
        try screen.paint()
        #expect(try screen.look(evenIfUnchanged: true) == .frame(changedRows: RowBands(), pixels: screen.picture))
    }

    /// The comparison never hides a change: 200 whole repaints, each with one more pixel changed at
    /// a random place; every look finds exactly that pixel's row, and the frame is the screen.
    @Test func everySinglePixelChangeIsFoundInItsRow() throws {
        var screen = try Screen(seed: 8)
        _ = try screen.look()
        var random = SeededGenerator(state: 16)
        for step in 0..<200 {
            let (x, y) = (Int.random(in: 0..<320, using: &random), Int.random(in: 0..<240, using: &random))
            screen.invert(x: x, y: y)
            try screen.paint()
            let found = try screen.look() == .frame(changedRows: RowBands(y..<(y + 1)), pixels: screen.picture)
            #expect(found, "step \(step): (\(x), \(y))")
            if !found { break }
        }
    }
}
