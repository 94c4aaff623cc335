/// The pictures scenes are made of, drawn once before a scene starts, and where their moving parts
/// are at a given moment. Pixels are BGRA in memory (`0xAARRGGBB` words), rows of `width * 4` bytes.
public enum SceneArt {
    // MARK: video

    /// How far the video texture slides: it is this much larger than the screen both ways.
    public static let travel = 256

    /// The size of the video texture for a screen.
    public static func textureSize(for screen: PixelSize) -> PixelSize {
        PixelSize(width: screen.width + travel, height: screen.height + travel)
    }

    /// Draws the video texture: smooth colour ramps everywhere (so a shift changes every pixel),
    /// sharp-edged squares and fine grain (so the encoder has real work, as with camera footage).
    public static func drawTexture(into pixels: UnsafeMutableRawPointer, size: PixelSize) {
        for y in 0..<size.height {
            let row = (pixels + y * size.width * 4).assumingMemoryBound(to: UInt32.self)
            for x in 0..<size.width {
                let square = (x >> 6 ^ y >> 6) & 1 == 1 ? 40 : -40
                let grain = Int(hash(x >> 2, y >> 2) & 31) - 16
                let red = ramp(x) + square + grain
                let green = ramp(2 * y + x / 3) - square + grain
                let blue = ramp(3 * (x + y) / 2) + grain
                row[x] = 0xFF00_0000 | channel(red) << 16 | channel(green) << 8 | channel(blue)
            }
        }
    }

    /// Where frame `frame`'s screen-sized view of the texture starts. Odd steps on a ping-pong
    /// path: two frames in a row never share an offset, so every pixel changes every frame.
    public static func textureOffset(frame: UInt64) -> (x: Int, y: Int) {
        (pingPong(frame &* 5, limit: travel), pingPong(frame &* 3, limit: travel))
    }

    // MARK: slides

    public static let slideCount = 3
    /// Seconds each slide stays up.
    public static let slideSeconds: UInt64 = 5
    /// The moving object's side: about a mouse pointer's.
    public static let objectSide = 32
    public static let objectColor: UInt32 = 0xFFD0_3020

    /// Draws slide `index`: a coloured title bar and lines of word-like blocks on a light page.
    public static func drawSlide(_ index: Int, into pixels: UnsafeMutableRawPointer, size: PixelSize) {
        let accents: [UInt32] = [0xFF1F_4E8C, 0xFF2E_7D32, 0xFF6A_1B9A]
        fill(PixelRect(x: 0, y: 0, size: size), 0xFFF5_F4EF, pixels, size)
        let unit = max(1, size.height / 60)
        fill(PixelRect(x: 0, y: 0, width: size.width, height: 8 * unit), accents[index % accents.count], pixels, size)
        var random = UInt32(index + 1) &* 2_654_435_761
        func next(_ range: Range<Int>) -> Int {
            random = random &* 1_664_525 &+ 1_013_904_223
            return range.lowerBound + Int(random >> 8) % range.count
        }
        let margin = size.width / 12
        // The title, in white on the bar.
        var x = margin
        for _ in 0..<next(2..<5) {
            let width = next(6..<16) * unit * 2
            fill(PixelRect(x: x, y: 2 * unit, width: width, height: 4 * unit), 0xFFFF_FFFF, pixels, size)
            x += width + 2 * unit
        }
        // Bulleted lines of dark "words".
        var y = 14 * unit
        while y + 3 * unit < size.height - 4 * unit {
            fill(PixelRect(x: margin, y: y, width: 2 * unit, height: 2 * unit), accents[index % accents.count],
                 pixels, size)
            x = margin + 4 * unit
            let end = size.width - margin - next(0..<(size.width / 4))
            while true {
                let width = next(3..<14) * unit
                guard x + width < end else { break }
                fill(PixelRect(x: x, y: y, width: width, height: 2 * unit), 0xFF30_3030, pixels, size)
                x += width + unit
            }
            y += next(4..<7) * unit
        }
    }

    /// The slide showing `elapsed` nanoseconds into a scene.
    public static func slide(at elapsed: UInt64) -> Int {
        Int(elapsed / (slideSeconds * 1_000_000_000) % UInt64(slideCount))
    }

    /// Where the moving object is `elapsed` nanoseconds into a scene: it bounces around the
    /// screen at a brisk pointer's pace, the same at any frame rate.
    public static func objectRect(at elapsed: UInt64, on screen: PixelSize) -> PixelRect {
        let milliseconds = elapsed / 1_000_000
        let x = pingPong(milliseconds * 420 / 1000, limit: max(1, screen.width - objectSide))
        let y = pingPong(milliseconds * 270 / 1000, limit: max(1, screen.height - objectSide))
        return PixelRect(x: x, y: y, width: objectSide, height: objectSide)
    }

    /// The text caret of the `caret` scene: a thin bar by the slide's first line, shown for half
    /// of each second, as an editor's caret blinks.
    public static func caretRect(on screen: PixelSize) -> PixelRect {
        PixelRect(x: screen.width / 8, y: screen.height / 5,
                  width: max(2, screen.width / 640), height: max(4, screen.height / 36))
    }

    /// Whether the caret shows `elapsed` nanoseconds into a scene.
    public static func caretShown(at elapsed: UInt64) -> Bool {
        elapsed / 500_000_000 % 2 == 0
    }

    // MARK: helpers

    /// Fills `rect` (clipped to the picture) with `color`.
    public static func fill(_ rect: PixelRect, _ color: UInt32, _ pixels: UnsafeMutableRawPointer, _ size: PixelSize) {
        let (left, right) = (max(0, rect.x), min(size.width, rect.maxX))
        let (top, bottom) = (max(0, rect.y), min(size.height, rect.maxY))
        guard left < right else { return }
        for y in top..<max(top, bottom) {
            let row = (pixels + y * size.width * 4).assumingMemoryBound(to: UInt32.self)
            for x in left..<right { row[x] = color }
        }
    }

    /// 0 → limit → 0 → …, one step per unit of `value`.
    static func pingPong(_ value: UInt64, limit: Int) -> Int {
        let period = UInt64(2 * limit)
        let phase = Int(value % period)
        return phase <= limit ? phase : 2 * limit - phase
    }

    /// A triangle wave from 0 to 255 and back, 512 units long.
    private static func ramp(_ value: Int) -> Int {
        let phase = value & 511
        return phase < 256 ? phase : 511 - phase
    }

    private static func channel(_ value: Int) -> UInt32 { UInt32(min(255, max(0, value))) }

    private static func hash(_ x: Int, _ y: Int) -> UInt32 {
        var h = UInt32(truncatingIfNeeded: x &* 374_761_393 &+ y &* 668_265_263)
        h = (h ^ h >> 13) &* 1_274_126_177
        return h ^ h >> 16
    }
}
