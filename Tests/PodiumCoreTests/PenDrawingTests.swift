import PodiumCore
import Testing

/// The pen's strokes as pure logic: drawn, undone, erased, bounded, and painted into frames.
struct PenDrawingTests {
    private func point(_ x: Int, _ y: Int) -> PixelPoint { PixelPoint(x: x, y: y) }


    @Test func aDragDrawsAFreehandPathAndShapesKeepTheirTwoCorners() {
        var drawing = PenDrawing()
        drawing.begin(at: point(10, 10), ink: .red, shape: .freehand)
        for x in 11...20 { drawing.extend(to: point(x, 10)) }
        drawing.extend(to: point(20, 10))
        drawing.end()
        drawing.extend(to: point(99, 99))
        #expect(drawing.strokes[0].points.count == 11 && drawing.pointCount == 11)
        drawing.begin(at: point(0, 0), ink: .blue, shape: .rectangle)
        drawing.extend(to: point(5, 5))
        drawing.extend(to: point(30, 40))
        drawing.end()
        #expect(drawing.strokes[1].points == [point(0, 0), point(30, 40)])
        #expect(drawing.pointCount == 13)
        drawing.undo()
        #expect(drawing.strokes.count == 1 && drawing.pointCount == 11)
        drawing.erase()
        #expect(drawing.strokes.isEmpty && drawing.pointCount == 0)
        #expect(PenDrawing.Ink(key: "y") == .yellow && PenDrawing.Ink(key: "q") == nil)
    }

    /// Past 10,000 points the oldest go first: memory stays bounded however long the talk.
    @Test func theOldestPointsGoPastTheBound() {
        var drawing = PenDrawing()
        for stroke in 0..<30 {
            drawing.begin(at: point(0, stroke), ink: .green, shape: .freehand)
            for x in 1..<500 { drawing.extend(to: point(x, stroke)) }
            drawing.end()
        }
        #expect(drawing.pointCount == PenDrawing.maxPoints)
        #expect(drawing.strokes.reduce(0) { $0 + $1.points.count } == PenDrawing.maxPoints)
        // The newest stroke is whole; what went was the oldest.
        #expect(drawing.strokes.last?.points.count == 500)
        #expect(drawing.strokes.first?.points.first?.y == 10)
    }

    /// What draws each shape: a path's steps, a rectangle's sides, an arrow's shaft and barbs.
    @Test func eachShapeIsDrawnByItsSegments() {
        var drawing = PenDrawing()
        drawing.begin(at: point(20, 20), ink: .red, shape: .freehand)
        drawing.extend(to: point(40, 20))
        drawing.extend(to: point(60, 30))
        drawing.end()
        drawing.begin(at: point(100, 30), ink: .yellow, shape: .rectangle)
        drawing.extend(to: point(150, 80))
        drawing.end()
        drawing.begin(at: point(10, 90), ink: .blue, shape: .arrow)
        drawing.extend(to: point(110, 90))
        drawing.end()
        let lines = drawing.strokes.map { $0.segments.map { [$0.0.x, $0.0.y, $0.1.x, $0.1.y] } }
        #expect(lines[0] == [[20, 20, 40, 20], [40, 20, 60, 30]])
        #expect(lines[1] == [[100, 30, 150, 30], [150, 30, 150, 80], [150, 80, 100, 80], [100, 80, 100, 30]])
        // The shaft, then two barbs of 20 px (a fifth of 100) at 25° behind the tip.
        #expect(lines[2] == [[10, 90, 110, 90], [110, 90, 92, 82], [110, 90, 92, 98]], "\(lines[2])")
    }
}
