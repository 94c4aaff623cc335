/// What a scene frame says about itself: its sequence number and when it was drawn.
public struct SceneStamp: Equatable, Sendable {
    public var sequence: UInt32
    /// When the frame was drawn, in milliseconds of `CLOCK_MONOTONIC` (wrapping after 49 days).
    public var milliseconds: UInt32

    public init(sequence: UInt32, milliseconds: UInt32) {
        self.sequence = sequence
        self.milliseconds = milliseconds
    }
}

/// A scene frame's stamp drawn as black and white blocks in the top-left corner, so what arrives
/// on the far side of capture, scaling and a lossy codec can still be read back.
///
/// Three rows of 32 blocks, most significant bit first: the sequence number, the draw time, and a
/// check word mixed from both, which tells a stamp from an unrelated picture (a blank or white
/// corner included).
/// Blocks are 8 pixels square: big enough to survive 4:2:0 chroma, H.264 at ordinary bitrates and
/// scaling down to a third.
public enum SceneStrip {
    public static let block = 8
    public static let columns = 32
    public static let rows = 3
    public static let size = PixelSize(width: columns * block, height: rows * block)

    /// Draws `stamp` into BGRA pixels whose first row starts at `pixels`.
    public static func draw(_ stamp: SceneStamp, into pixels: UnsafeMutableRawPointer, rowBytes: Int) {
        // Drawn every frame: the three words stay on the stack.
        let words: InlineArray<3, UInt32> = [stamp.sequence, stamp.milliseconds, check(stamp)]
        for y in 0..<size.height {
            let row = (pixels + y * rowBytes).assumingMemoryBound(to: UInt32.self)
            let word = words[y / block]
            for x in 0..<size.width {
                let bit = word >> UInt32(columns - 1 - x / block) & 1
                row[x] = bit == 1 ? 0xFFFF_FFFF : 0xFF00_0000
            }
        }
    }

    /// Reads a stamp back from a picture, through `brightness(x, y)` (0 to 255) of its pixels.
    /// - Parameter scale: how much the picture was scaled since the strip was drawn (2/3 for 1080p
    ///   shown at 720p).
    /// - Returns: `nil` when the blocks do not hold a stamp (the check word does not match).
    public static func read(scale: Double = 1, brightness: (Int, Int) -> Int) -> SceneStamp? {
        var words: [UInt32] = [0, 0, 0]
        for row in 0..<rows {
            for column in 0..<columns {
                // The block's centre, where neither blur nor chroma bleed from a neighbour reaches.
                let x = Int((Double(column * block) + Double(block) / 2) * scale)
                let y = Int((Double(row * block) + Double(block) / 2) * scale)
                words[row] = words[row] << 1 | (brightness(x, y) >= 128 ? 1 : 0)
            }
        }
        let stamp = SceneStamp(sequence: words[0], milliseconds: words[1])
        return words[2] == check(stamp) ? stamp : nil
    }

    /// The sequence times a large odd constant, XOR the time, XOR a constant: never all ones or all zeros with them.
    public static func check(_ stamp: SceneStamp) -> UInt32 {
        stamp.sequence &* 0x9E37_79B1 ^ stamp.milliseconds ^ 0xA5A5_A5A5
    }
}
