/// Draws the pointer highlight into captured frames: the disc under the pointer, and after a
/// click a ring that spreads from the disc's edge to twice its radius and fades.
///
/// The disc is worked out once, edge smoothed; the ring, only while it spreads. Not thread-safe:
/// the capture thread's.
public struct PointerMarks {
    /// How long a ring spreads after a click.
    public static let rippleDuration: UInt64 = 500_000_000
    /// The ring's width, in pixels.
    static let ringWidth = 4.0

    public let style: PointerHighlight
    /// Premultiplied BGRA, `(2 × radius + 1)²` pixels, centred on the pointer.
    private let disc: [UInt32]
    /// When the last click came, on the run's clock.
    private var clickTime: UInt64?

    public init(style: PointerHighlight) {
        self.style = style
        let radius = style.radius
        let side = 2 * radius + 1
        var disc = [UInt32](repeating: 0, count: side * side)
        for y in 0..<side {
            for x in 0..<side {
                let coverage = Self.coverage(distance: Self.distance(x - radius, y - radius),
                                             from: 0, to: Double(radius) + 0.5)
                let alpha = UInt32(Double(PointerHighlight.opacity) * coverage)
                disc[y * side + x] = PixelBlend.premultiplied(style.colour, alpha: alpha)
            }
        }
        self.disc = disc
    }

    /// A button went down at `time`: a ring starts spreading.
    public mutating func clicked(at time: UInt64) {
        clickTime = time
    }

    /// Whether a ring is still spreading at `time`: frames must be drawn though nothing else moved.
    public func isRippling(at time: UInt64) -> Bool {
        clickTime.map { time >= $0 && time - $0 < Self.rippleDuration } ?? false
    }

    /// Where the disc, and the ring if one spreads, are drawn around `pointer` at `time`.
    public func bounds(at pointer: (x: Int, y: Int), time: UInt64) -> PixelRect {
        var reach = style.radius
        if let clickTime, isRippling(at: time) { reach = max(reach, ringReach(age: time - clickTime)) }
        return PixelRect(x: pointer.x - reach, y: pointer.y - reach, width: 2 * reach + 1, height: 2 * reach + 1)
    }

    /// How far from the pointer the ring reaches `age` nanoseconds after the click.
    private func ringReach(age: UInt64) -> Int {
        Int(ringRadius(age: age) + Self.ringWidth) + 1
    }

    /// The ring's radius `age` nanoseconds after the click: from the disc's edge out to twice its
    /// radius, fast at first.
    private func ringRadius(age: UInt64) -> Double {
        let progress = Double(age) / Double(Self.rippleDuration)
        return Double(style.radius) * (2 - (1 - progress) * (1 - progress))
    }

    /// Draws the disc centred on `pointer` (in the frame's coordinates), and the ring if one spreads.
    /// - Returns: the frame's rows it drew on; `nil` when none (the pointer is far outside).
    public func draw(into frame: CapturedFrame, at pointer: (x: Int, y: Int), time: UInt64) -> Range<Int>? {
        let bounds = PixelRect(x: 0, y: 0, size: frame.size)
        let radius = style.radius
        var drawn: Range<Int>?
        let side = 2 * radius + 1
        let discRect = PixelRect(x: pointer.x - radius, y: pointer.y - radius, width: side, height: side)
        if let visible = discRect.intersection(bounds) {
            disc.withUnsafeBufferPointer { source in
                var y = visible.y
                while y < visible.maxY {
                    let line = (frame.buffer.bytes + y * frame.bytesPerRow).assumingMemoryBound(to: UInt32.self)
                    let row = (y - discRect.y) * side - discRect.x
                    var x = visible.x
                    while x < visible.maxX {
                        line[x] = PixelBlend.over(source[row + x], line[x])
                        x += 1
                    }
                    y += 1
                }
            }
            drawn = visible.y..<visible.maxY
        }
        if let clickTime, isRippling(at: time), let rows = ring(into: frame, at: pointer, age: time - clickTime) {
            drawn = drawn.map { min($0.lowerBound, rows.lowerBound)..<max($0.upperBound, rows.upperBound) } ?? rows
        }
        return drawn
    }

    /// The ring `age` nanoseconds after the click: from the disc's edge out to twice its radius,
    /// fast at first, fading to nothing.
    private func ring(into frame: CapturedFrame, at pointer: (x: Int, y: Int), age: UInt64) -> Range<Int>? {
        let progress = Double(age) / Double(Self.rippleDuration)
        let radius = ringRadius(age: age)
        let colour = PixelBlend.premultiplied(style.colour, alpha: UInt32(230 * (1 - progress)))
        let reach = ringReach(age: age)
        let box = PixelRect(x: pointer.x - reach, y: pointer.y - reach, width: 2 * reach + 1, height: 2 * reach + 1)
        guard let visible = box.intersection(PixelRect(x: 0, y: 0, size: frame.size)) else { return nil }
        let half = Self.ringWidth / 2
        var y = visible.y
        while y < visible.maxY {
            let line = (frame.buffer.bytes + y * frame.bytesPerRow).assumingMemoryBound(to: UInt32.self)
            var x = visible.x
            while x < visible.maxX {
                let coverage = Self.coverage(distance: Self.distance(x - pointer.x, y - pointer.y),
                                             from: radius - half, to: radius + half)
                if coverage > 0 { line[x] = PixelBlend.over(Self.scaled(colour, by: coverage), line[x]) }
                x += 1
            }
            y += 1
        }
        return visible.y..<visible.maxY
    }

    private static func distance(_ dx: Int, _ dy: Int) -> Double {
        Double(dx * dx + dy * dy).squareRoot()
    }

    /// How much of a pixel at `distance` from the centre lies between the radii `inner` and
    /// `outer`: 1 well inside, 0 well outside, a ramp one pixel wide at each edge.
    private static func coverage(distance: Double, from inner: Double, to outer: Double) -> Double {
        max(0, min(1, outer - distance, inner <= 0 ? 1 : distance - inner + 1))
    }

    /// A premultiplied pixel with every channel, alpha too, scaled by `factor` (0…1).
    private static func scaled(_ pixel: UInt32, by factor: Double) -> UInt32 {
        guard factor < 1 else { return pixel }
        let scale = UInt32(factor * 256)
        let lanes: UInt32 = 0x00FF_00FF
        return ((pixel & lanes) * scale >> 8) & lanes | (((pixel >> 8) & lanes) * scale >> 8 & lanes) << 8
    }
}
