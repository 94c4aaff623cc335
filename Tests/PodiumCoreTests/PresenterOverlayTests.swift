import PodiumCore
import PodiumCoreTesting
import Testing

/// The presenter's tools drawn over any source that says where the pointer is (X11's grabbers,
/// PipeWire's cursor metadata): a pointer that moves over a still picture sends it again, a click
/// spreads a ring, and a cursor the source drew in already is drawn again only over a highlight.
@Suite struct PresenterOverlayTests {
    static let grey = RGBColor(red: 64, green: 64, blue: 64)
    static let size = PixelSize(width: 200, height: 100)
    static let millisecond: UInt64 = 1_000_000

    /// A grey 200x100 source, highlighted in red (radius 10) when asked.
    struct Fixture {
        let source = PaintedGrabber(size: size, color: grey)
        let tools: PresenterTools
        let overlay: PresenterOverlay
        var sequence: UInt64 = 0

        init(highlight: Bool = true) {
            tools = PresenterTools(highlight: highlight
                                       ? PointerHighlight(colour: RGBColor(red: 255, green: 0, blue: 0), radius: 10)
                                       : nil)
            overlay = PresenterOverlay(source: source, presenter: tools, drawsCursor: true, bufferCount: 3)
        }

        /// What the slot at `milliseconds` hands on: a frame (released at once, its pixels read by
        /// `read` first), or `nil`.
        mutating func next<T>(at milliseconds: UInt64, _ read: (CapturedFrame) -> T) throws -> T? {
            let time = milliseconds * millisecond
            let outcome = try overlay.capture(sequence: sequence, time: time, slotTime: time, evenIfUnchanged: false)
            guard case .frame(let frame) = outcome else { return nil }
            sequence += 1
            defer { frame.buffer.share(with: 0) }
            return read(frame)
        }
    }

    static func color(_ frame: CapturedFrame, _ x: Int, _ y: Int) -> RGBColor {
        RGBColor(pixel: frame.buffer.bytes.load(fromByteOffset: y * frame.bytesPerRow + x * 4, as: UInt32.self))
    }

    static func isGrey(_ color: RGBColor) -> Bool { color == grey }

    @Test func aPointerThatMovesOverAStillPictureSendsItAgain() throws {
        var fixture = Fixture()
        fixture.source.point(PointerReport(x: 50, y: 50))
        let first = try #require(try fixture.next(at: 0) { Self.color($0, 50, 50) })
        #expect(first.red > 130 && first.green < 60, "the disc at the pointer: \(first)")
        #expect(try fixture.next(at: 33) { _ in true } == nil, "nothing moved: nothing sent")
        fixture.source.point(PointerReport(x: 150, y: 50))
        let moved = try #require(try fixture.next(at: 66) { ($0, Self.color($0, 50, 50), Self.color($0, 150, 50)) })
        #expect(Self.isGrey(moved.1) && moved.2.red > 130, "the disc moved: \(moved.1) \(moved.2)")
        #expect(moved.0.changedRows == nil || moved.0.changedRows?.isEmpty == false)
        fixture.source.point(nil)
        let hidden = try #require(try fixture.next(at: 99) { Self.color($0, 150, 50) })
        #expect(Self.isGrey(hidden), "no pointer, no disc: \(hidden)")
    }

    @Test func aClickSpreadsARingForHalfASecond() throws {
        var fixture = Fixture()
        fixture.source.point(PointerReport(x: 100, y: 50, clicks: 0))
        _ = try fixture.next(at: 0) { _ in true }
        // 15 px right of the pointer: outside the disc (radius 10), where the ring passes.
        fixture.source.point(PointerReport(x: 100, y: 50, clicks: 1))
        var ringed: [UInt64] = []
        var sent = 0
        for milliseconds in stride(from: UInt64(33), through: 900, by: 33) {
            guard let outside = try fixture.next(at: milliseconds, { Self.color($0, 115, 50) }) else { continue }
            sent += 1
            if !Self.isGrey(outside) { ringed.append(milliseconds) }
        }
        #expect(!ringed.isEmpty && ringed.allSatisfy { $0 < 33 + 500 }, "ringed at \(ringed)")
        #expect((14...17).contains(sent), "a frame a slot while it spreads, one when it is gone: \(sent)")
    }

    @Test func aCursorInThePictureIsDrawnAgainOnlyOverAHighlight() throws {
        let white = try #require(CursorImage(pixels: Array(repeating: 0xFFFF_FFFF, count: 4),
                                             size: PixelSize(width: 2, height: 2), hotspotX: 0, hotspotY: 0))
        var plain = Fixture(highlight: false)
        plain.source.point(PointerReport(x: 20, y: 20, cursor: white, cursorInPicture: true))
        plain.source.paint(Self.grey, rows: 0..<100)
        let untouched = try #require(try plain.next(at: 0) { Self.color($0, 20, 20) })
        #expect(Self.isGrey(untouched), "the source drew it (here it did not): not drawn twice")
        var highlighted = Fixture()
        highlighted.source.point(PointerReport(x: 20, y: 20, cursor: white, cursorInPicture: true))
        let over = try #require(try highlighted.next(at: 0) { (Self.color($0, 20, 20), Self.color($0, 23, 20)) })
        #expect(over.0 == RGBColor(red: 255, green: 255, blue: 255), "the cursor over the disc: \(over.0)")
        #expect(over.1.red > 130 && over.1.green < 60, "the disc beside it: \(over.1)")
    }

    /// Copies are brought up to date by the rows that changed: over slots that paint bands and
    /// move the pointer, each frame shows every row as the source has it now, and the disc only
    /// where the pointer is (none left behind in a buffer used again).
    @Test func eachCopyShowsTheSourceAsItIsNow() throws {
        var fixture = Fixture()
        let colours = [RGBColor(red: 0, green: 0, blue: 200), RGBColor(red: 0, green: 200, blue: 0),
                       RGBColor(red: 200, green: 200, blue: 200)]
        var expected = Array(repeating: Self.grey, count: 100)
        var frames = 0
        for slot in 0..<12 {
            let band = (slot * 17) % 90..<(slot * 17) % 90 + 10
            fixture.source.paint(colours[slot % 3], rows: band)
            for row in band { expected[row] = colours[slot % 3] }
            let pointer = (x: slot % 2 == 0 ? 30 : 170, y: 50)
            fixture.source.point(PointerReport(x: pointer.x, y: pointer.y))
            let wrong = try fixture.next(at: UInt64(slot) * 33) { frame in
                (0..<100).filter { row in
                    // Beside the pointer the disc (radius 10) covers the picture; elsewhere the picture.
                    [100, 30, 170].contains { x in
                        let colour = Self.color(frame, x, row)
                        let distance = x == pointer.x ? abs(row - pointer.y) : Int.max
                        if (9...11).contains(distance) { return false }  // the disc's smoothed edge
                        return distance <= 8 ? colour == expected[row] : colour != expected[row]
                    }
                }
            }
            if let wrong {
                frames += 1
                #expect(wrong.isEmpty, "slot \(slot): rows not as the source has them, or without the disc: \(wrong)")
            }
        }
        #expect(frames == 12)
    }

    /// Zoomed on the top left, a change in the bottom rows sends nothing: the part shown is the same.
    @Test func aChangeOutsideTheZoomSendsNothing() throws {
        let source = PaintedGrabber(size: Self.size, color: Self.grey)
        let overlay = PresenterOverlay(source: source, presenter: PresenterTools(zoom: 2), drawsCursor: false,
                                       bufferCount: 3)
        source.point(PointerReport(x: 20, y: 20))
        func next(_ time: UInt64) throws -> CaptureOutcome {
            let outcome = try overlay.capture(sequence: time, time: time, slotTime: time, evenIfUnchanged: false)
            if case .frame(let frame) = outcome { frame.buffer.share(with: 0) }
            return outcome
        }
        guard case .frame = try next(0) else { return #expect(Bool(false), "the first frame") }
        source.paint(RGBColor(red: 255, green: 0, blue: 0), rows: 80..<90)
        guard case .unchanged = try next(1) else { return #expect(Bool(false), "a change below the part shown") }
        source.paint(RGBColor(red: 255, green: 0, blue: 0), rows: 10..<20)
        guard case .frame = try next(2) else { return #expect(Bool(false), "a change in the part shown") }
    }
}
