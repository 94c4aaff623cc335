/// Blending on 32-bit BGRA pixels, as captured frames hold them.
public enum PixelBlend {
    /// `source` over `destination`, with `source` premultiplied: each channel
    /// `s + d × (255 − α) / 255`, rounded, at most 255.
    ///
    /// Two channels at a time, each in 16 bits of a 32-bit word: `x / 255` rounded is
    /// `(x + 128 + (x + 128) / 256) / 256` for any `x` up to 255 × 255.
    @inline(__always)
    public static func over(_ source: UInt32, _ destination: UInt32) -> UInt32 {
        let alpha = source >> 24
        if alpha == 0 { return destination }
        if alpha == 255 { return source }
        let keep = 255 - alpha
        let lanes: UInt32 = 0x00FF_00FF
        var blueRed = (destination & lanes) &* keep &+ 0x0080_0080
        var greenAlpha = ((destination >> 8) & lanes) &* keep &+ 0x0080_0080
        blueRed = ((blueRed &+ ((blueRed >> 8) & lanes)) >> 8) & lanes
        greenAlpha = ((greenAlpha &+ ((greenAlpha >> 8) & lanes)) >> 8) & lanes
        blueRed &+= source & lanes
        greenAlpha &+= (source >> 8) & lanes
        // A channel past 255 (a source not quite premultiplied) stays at 255.
        let overflow: UInt32 = 0x0100_0100
        blueRed |= (blueRed & overflow) &- ((blueRed & overflow) >> 8)
        greenAlpha |= (greenAlpha & overflow) &- ((greenAlpha & overflow) >> 8)
        return (blueRed & lanes) | ((greenAlpha & lanes) << 8)
    }

    /// `colour` at `alpha` of 255, premultiplied, as `over` takes it.
    public static func premultiplied(_ colour: RGBColor, alpha: UInt32) -> UInt32 {
        let scale = { (channel: UInt8) in (UInt32(channel) * alpha + 127) / 255 }
        return alpha << 24 | scale(colour.red) << 16 | scale(colour.green) << 8 | scale(colour.blue)
    }
}
