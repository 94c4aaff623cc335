/// Blending on 32-bit BGRA pixels, as captured frames hold them.
public enum PixelBlend {
    /// `source` over `destination`, with `source` premultiplied: each channel
    /// `s + d × (255 − α) / 255`.
    @inline(__always)
    public static func over(_ source: UInt32, _ destination: UInt32) -> UInt32 {
        let alpha = source >> 24
        if alpha == 0 { return destination }
        if alpha == 255 { return source }
        let keep = 255 - alpha
        var result: UInt32 = 0
        var shift: UInt32 = 0
        while shift < 32 {
            let s = (source >> shift) & 0xFF
            let d = (destination >> shift) & 0xFF
            result |= min(255, s + (d * keep + 127) / 255) << shift
            shift += 8
        }
        return result
    }

    /// `colour` at `alpha` of 255, premultiplied, as `over` takes it.
    public static func premultiplied(_ colour: RGBColor, alpha: UInt32) -> UInt32 {
        let scale = { (channel: UInt8) in (UInt32(channel) * alpha + 127) / 255 }
        return alpha << 24 | scale(colour.red) << 16 | scale(colour.green) << 8 | scale(colour.blue)
    }
}
