import PodiumCore
import Testing

/// Clipping, as the cursor is drawn into a captured region: every position of a 16x16 picture
/// relative to an 8x8 or 64x48 frame.
@Suite struct PixelRectTests {
    let frame = PixelRect(x: 0, y: 0, width: 64, height: 48)

    @Test func insideIsWhole() {
        let cursor = PixelRect(x: 10, y: 10, width: 16, height: 16)
        #expect(cursor.intersection(frame) == cursor)
    }

    @Test(arguments: [
        // Partly outside on each side and each corner.
        (-5, 10, PixelRect(x: 0, y: 10, width: 11, height: 16)),
        (60, 10, PixelRect(x: 60, y: 10, width: 4, height: 16)),
        (10, -15, PixelRect(x: 10, y: 0, width: 16, height: 1)),
        (10, 40, PixelRect(x: 10, y: 40, width: 16, height: 8)),
        (-8, -8, PixelRect(x: 0, y: 0, width: 8, height: 8)),
        (63, -8, PixelRect(x: 63, y: 0, width: 1, height: 8)),
        (-15, 47, PixelRect(x: 0, y: 47, width: 1, height: 1)),
        (50, 40, PixelRect(x: 50, y: 40, width: 14, height: 8)),
    ])
    func partlyOutsideIsClipped(x: Int, y: Int, visible: PixelRect) {
        #expect(PixelRect(x: x, y: y, width: 16, height: 16).intersection(frame) == visible)
        #expect(frame.intersection(PixelRect(x: x, y: y, width: 16, height: 16)) == visible)
    }

    @Test(arguments: [(-16, 10), (64, 10), (10, -16), (10, 48), (-100, -100), (2000, 30), (64, 48), (-16, -16)])
    func whollyOutsideIsNothing(x: Int, y: Int) {
        #expect(PixelRect(x: x, y: y, width: 16, height: 16).intersection(frame) == nil)
    }

    @Test func largerThanTheFrameIsTheFrame() {
        let tiny = PixelRect(x: 0, y: 0, width: 8, height: 8)
        #expect(PixelRect(x: -3, y: -5, width: 16, height: 16).intersection(tiny) == tiny)
        let visible = PixelRect(x: 5, y: -5, width: 16, height: 16).intersection(tiny)
        #expect(visible == PixelRect(x: 5, y: 0, width: 3, height: 8))
    }
}
