/// A deterministic picture to draw on a test display and find again in what Podium captured.
///
/// Gradients and a sinusoidal texture: every pixel differs from its neighbours, so a shifted or
/// scaled picture shows, yet colour changes slowly enough to survive 4:2:0 chroma, so a good
/// lossy encoder keeps it above 40 dB.
public struct TestPattern: Sendable {
    public let width: Int
    public let height: Int
    /// BGRA bytes, `width × 4` a row, alpha 255.
    public let bgra: [UInt8]

    public init(width: Int, height: Int, seed: Int = 0) {
        self.width = width
        self.height = height
        var bytes = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 4
                let wave = sin(Double(x + seed * 7) / 9) * cos(Double(y) / 11)
                bytes[offset + 0] = UInt8(20 + x * 200 / max(1, width - 1))                   // blue
                bytes[offset + 1] = UInt8(128 + 90 * wave)                                     // green
                bytes[offset + 2] = UInt8(20 + y * 200 / max(1, height - 1))                   // red
            }
        }
        bgra = bytes
    }

    /// A picture of `width × height` BGRA pixels given as they are.
    public init(width: Int, height: Int, bgra: [UInt8]) {
        self.width = width
        self.height = height
        self.bgra = bgra
    }

    /// One colour everywhere, given as (blue, green, red).
    public static func solid(width: Int, height: Int, bgra: (UInt8, UInt8, UInt8)) -> TestPattern {
        let pixel: [UInt8] = [bgra.0, bgra.1, bgra.2, 255]
        let pixels = Array([[UInt8]](repeating: pixel, count: width * height).joined())
        return TestPattern(width: width, height: height, bgra: pixels)
    }

    /// The rows `y..<y+height` and columns `x..<x+width`, as BGRA.
    public func crop(x: Int, y: Int, width: Int, height: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(width * height * 4)
        for row in y..<(y + height) {
            let start = (row * self.width + x) * 4
            bytes += bgra[start..<(start + width * 4)]
        }
        return bytes
    }

    /// The pattern as packed RGB24, as `ffmpeg -pix_fmt rgb24` decodes it.
    public var rgb: [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 3)
        for pixel in 0..<(width * height) {
            out[pixel * 3] = bgra[pixel * 4 + 2]
            out[pixel * 3 + 1] = bgra[pixel * 4 + 1]
            out[pixel * 3 + 2] = bgra[pixel * 4]
        }
        return out
    }
}

/// Peak signal-to-noise ratio between two pictures of the same byte layout, in dB
/// (`.infinity` when they are identical).
public func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
    precondition(a.count == b.count && !a.isEmpty, "PSNR needs two pictures of the same size")
    var sum = 0.0
    for index in a.indices {
        let difference = Double(a[index]) - Double(b[index])
        sum += difference * difference
    }
    let mse = sum / Double(a.count)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
}

#if canImport(Glibc)
import Glibc
#endif

/// How two pictures differ, in one short line: `nil` when they are the same bytes.
public func difference(_ actual: [UInt8], _ expected: [UInt8]) -> String? {
    guard actual.count == expected.count else { return "\(actual.count) bytes where \(expected.count) were expected" }
    guard let first = actual.indices.first(where: { actual[$0] != expected[$0] }) else { return nil }
    let count = actual.indices.lazy.filter { actual[$0] != expected[$0] }.count
    return "\(count) of \(actual.count) bytes differ; the first at byte \(first): "
        + "\(actual[first]) instead of \(expected[first])"
}
