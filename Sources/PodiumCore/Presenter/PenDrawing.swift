import Foundation

/// What the presenter's pen has drawn over the captured area: strokes, each of one ink and one
/// shape, in the area's own pixels, so they stay where they were drawn on the screen.
///
/// Bounded: past `maxPoints` points the oldest go first (a long talk's scribbles cannot grow
/// memory). A value type, changed by the pen's input and read by whatever draws it.
public struct PenDrawing: Sendable, Equatable {
    /// The inks, as the keys r, g, b and y pick them.
    public enum Ink: String, Sendable, CaseIterable {
        case red, green, blue, yellow

        /// Opaque BGRA, as frames hold pixels.
        public var pixel: UInt32 {
            switch self {
            case .red: 0xFFE5_3935
            case .green: 0xFF43_A047
            case .blue: 0xFF1E_88E5
            case .yellow: 0xFFFD_D835
            }
        }

        /// The ink a key picks (`r`, `g`, `b`, `y`), if any.
        public init?(key: Character) {
            guard let ink = Self.allCases.first(where: { $0.rawValue.first == key }) else { return nil }
            self = ink
        }
    }

    /// What a drag draws: the path the pointer took, or a straight shape from where it went down
    /// to where it is.
    public enum Shape: Sendable, Equatable {
        case freehand, arrow, rectangle
    }

    public struct Stroke: Sendable, Equatable {
        public var ink: Ink
        public var shape: Shape
        /// The freehand path, or a shape's two corners (its start and its end).
        public var points: [PixelPoint]

        /// The straight lines that draw it: a path's steps, a rectangle's four sides, an arrow's
        /// shaft and the two barbs of its head (a fifth of its length, at most 40 px, 25° off it).
        public var segments: [(PixelPoint, PixelPoint)] {
            switch shape {
            case .freehand:
                guard points.count > 1 else { return points.map { ($0, $0) } }
                return (1..<points.count).map { (points[$0 - 1], points[$0]) }
            case .rectangle:
                let (a, b) = (points[0], points[1])
                let corners = [a, PixelPoint(x: b.x, y: a.y), b, PixelPoint(x: a.x, y: b.y)]
                return (0..<4).map { (corners[$0], corners[($0 + 1) % 4]) }
            case .arrow:
                let (tail, tip) = (points[0], points[1])
                let (dx, dy) = (Double(tip.x - tail.x), Double(tip.y - tail.y))
                let length = (dx * dx + dy * dy).squareRoot()
                guard length >= 1 else { return [(tail, tip)] }
                let head = min(40, length / 5)
                let (ux, uy) = (-dx / length, -dy / length)
                return [(tail, tip)] + [0.436, -0.436].map { angle in
                    let (cosine, sine) = (cos(angle), sin(angle))
                    return (tip, PixelPoint(x: tip.x + Int(((ux * cosine - uy * sine) * head).rounded()),
                                            y: tip.y + Int(((ux * sine + uy * cosine) * head).rounded())))
                }
            }
        }
    }

    /// The most points kept, over every stroke.
    public static let maxPoints = 10_000

    public private(set) var strokes: [Stroke] = []
    /// How many points the strokes hold.
    public private(set) var pointCount = 0
    /// The stroke being drawn now (the last one), while a button is held.
    public private(set) var isDrawing = false
    /// Counts the changes that take away or move what was drawn (an undo, an erase, the oldest
    /// points dropped, a shape's end moved); a path that only grows leaves it, so whatever shows the
    /// strokes can draw just what was added.
    public private(set) var rewrites = 0

    public init() {}

    /// A button went down at `point`: a new stroke begins there.
    public mutating func begin(at point: PixelPoint, ink: Ink, shape: Shape) {
        strokes.append(Stroke(ink: ink, shape: shape, points: shape == .freehand ? [point] : [point, point]))
        pointCount += strokes[strokes.count - 1].points.count
        isDrawing = true
        keepWithinBound()
    }

    /// The pointer moved to `point` with the button held: a freehand path goes on there, a shape's
    /// end moves there.
    public mutating func extend(to point: PixelPoint) {
        guard isDrawing, let last = strokes.indices.last else { return }
        if strokes[last].shape == .freehand {
            guard strokes[last].points.last != point else { return }
            strokes[last].points.append(point)
            pointCount += 1
            keepWithinBound()
        } else {
            guard strokes[last].points[1] != point else { return }
            strokes[last].points[1] = point
            rewrites += 1
        }
    }

    /// The button went up: the stroke is done.
    public mutating func end() {
        isDrawing = false
    }

    /// Takes the last stroke away (Ctrl+Z).
    public mutating func undo() {
        guard let last = strokes.popLast() else { return }
        pointCount -= last.points.count
        isDrawing = false
        rewrites += 1
    }

    /// Takes every stroke away (`e`).
    public mutating func erase() {
        strokes = []
        pointCount = 0
        isDrawing = false
        rewrites += 1
    }

    /// Drops the oldest points past `maxPoints`: the start of the oldest stroke first, a stroke
    /// with too few left to draw as a whole.
    private mutating func keepWithinBound() {
        while pointCount > Self.maxPoints, !strokes.isEmpty {
            rewrites += 1
            let excess = pointCount - Self.maxPoints
            if strokes[0].shape == .freehand && strokes[0].points.count - excess >= 2 && strokes.count > 1 {
                strokes[0].points.removeFirst(excess)
                pointCount -= excess
            } else {
                pointCount -= strokes.removeFirst().points.count
            }
        }
    }
}

/// A pixel's place, in the captured area's coordinates.
public struct PixelPoint: Sendable, Equatable, Hashable {
    public var x: Int
    public var y: Int

    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}

extension PenDrawing {
    /// The width of every line, in pixels.
    public static let lineWidth = 5
}
