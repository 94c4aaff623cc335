import PodiumCore
import Testing

struct SceneStripTests {
    /// A picture with `stamp` drawn in its corner, on a mid-grey page.
    func picture(_ stamp: SceneStamp, width: Int = 300, height: Int = 40) -> [UInt32] {
        var pixels = [UInt32](repeating: 0xFF80_8080, count: width * height)
        pixels.withUnsafeMutableBytes { SceneStrip.draw(stamp, into: $0.baseAddress!, rowBytes: width * 4) }
        return pixels
    }

    @Test(arguments: [SceneStamp(sequence: 0, milliseconds: 0), SceneStamp(sequence: 41, milliseconds: 123_456_789),
                      SceneStamp(sequence: .max, milliseconds: .max),
                      SceneStamp(sequence: 0x8000_0001, milliseconds: 7)])
    func stampReadsBack(stamp: SceneStamp) {
        let pixels = picture(stamp)
        #expect(SceneStrip.read { x, y in Int(pixels[y * 300 + x] & 0xFF) } == stamp)
    }

    @Test func stampReadsBackFromAPictureScaledToTwoThirds() {
        let stamp = SceneStamp(sequence: 1_234_567, milliseconds: 89_012_345)
        let pixels = picture(stamp)
        // Nearest-neighbour 2/3: the crudest scaler still keeps every block's centre.
        let read = SceneStrip.read(scale: 2.0 / 3) { x, y in Int(pixels[(y * 3 / 2) * 300 + x * 3 / 2] & 0xFF) }
        #expect(read == stamp)
    }

    @Test func aPictureWithoutAStampReadsAsNone() {
        for level in [0, 0x80, 0xFF] {
            #expect(SceneStrip.read { _, _ in level } == nil, "a uniform picture of \(level)")
        }
        // One flipped block breaks the check word.
        var pixels = picture(SceneStamp(sequence: 5, milliseconds: 9))
        for y in 0..<8 { for x in 0..<8 { pixels[y * 300 + x] ^= 0x00FF_FFFF } }
        #expect(SceneStrip.read { x, y in Int(pixels[y * 300 + x] & 0xFF) } == nil)
    }

    @Test func videoOffsetsChangeEveryFrameAndStayInTheTexture() {
        var previous = SceneArt.textureOffset(frame: 0)
        for frame in 1..<2_000 as Range<UInt64> {
            let offset = SceneArt.textureOffset(frame: frame)
            #expect(offset.x != previous.x && offset.y != previous.y, "frame \(frame)")
            #expect((0...SceneArt.travel).contains(offset.x) && (0...SceneArt.travel).contains(offset.y))
            previous = offset
        }
    }

    @Test func slidesChangeEveryFiveSecondsAndTheObjectStaysOnScreen() {
        let second: UInt64 = 1_000_000_000
        #expect(SceneArt.slide(at: 0) == 0 && SceneArt.slide(at: 5 * second - 1) == 0)
        #expect(SceneArt.slide(at: 5 * second) == 1 && SceneArt.slide(at: 15 * second) == 0)
        let screen = PixelSize(width: 640, height: 480)
        for tenth in 0..<600 as Range<UInt64> {
            let rect = SceneArt.objectRect(at: tenth * second / 10, on: screen)
            #expect(rect.x >= 0 && rect.y >= 0 && rect.maxX <= 640 && rect.maxY <= 480)
        }
        #expect(SceneArt.objectRect(at: 0, on: screen) != SceneArt.objectRect(at: second / 30, on: screen))
    }
}
