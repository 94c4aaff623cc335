import PodiumCore
import Testing

/// The pen's strokes as pure logic: drawn, undone, erased, bounded, and painted into frames.
struct PenDrawingTests {
    private func point(_ x: Int, _ y: Int) -> PixelPoint { PixelPoint(x: x, y: y) }

    private func covers(_ rows: RowBands, _ row: Int) -> Bool { (0..<rows.count).contains { rows[$0].contains(row) } }

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

    @Test func strokesArePaintedInTheirInkWhereTheyWereDrawn() {
        let (frame, storage) = PresenterDrawingTests.blackFrame()
        defer { withExtendedLifetime(storage) {} }
        var drawing = PenDrawing()
        drawing.begin(at: point(20, 20), ink: .red, shape: .freehand)
        drawing.extend(to: point(60, 20))
        drawing.end()
        drawing.begin(at: point(100, 30), ink: .yellow, shape: .rectangle)
        drawing.extend(to: point(150, 80))
        drawing.end()
        drawing.begin(at: point(10, 90), ink: .blue, shape: .arrow)
        drawing.extend(to: point(90, 90))
        drawing.end()
        let rows = drawing.draw(into: frame)
        #expect(PresenterDrawingTests.pixel(frame, 40, 20) == RGBColor(red: 0xE5, green: 0x39, blue: 0x35))
        #expect(PresenterDrawingTests.pixel(frame, 40, 24) == RGBColor(red: 0, green: 0, blue: 0))
        // A rectangle's edges, not its inside.
        #expect(PresenterDrawingTests.pixel(frame, 125, 30) == RGBColor(red: 0xFD, green: 0xD8, blue: 0x35))
        #expect(PresenterDrawingTests.pixel(frame, 150, 55) == RGBColor(red: 0xFD, green: 0xD8, blue: 0x35))
        #expect(PresenterDrawingTests.pixel(frame, 125, 55) == RGBColor(red: 0, green: 0, blue: 0))
        // The arrow's shaft, and a barb behind its tip.
        #expect(PresenterDrawingTests.pixel(frame, 50, 90) == RGBColor(red: 0x1E, green: 0x88, blue: 0xE5))
        #expect(PresenterDrawingTests.pixel(frame, 82, 87) == RGBColor(red: 0x1E, green: 0x88, blue: 0xE5))
        #expect(covers(rows, 20) && covers(rows, 55) && covers(rows, 90) && !covers(rows, 5), "\(rows)")
    }

    /// A frame that shows a part of the area (a zoom) gets the strokes where that part has them,
    /// and a stroke off the frame is not drawn at all.
    @Test func aZoomedFrameGetsTheStrokesOfItsPart() {
        let (frame, storage) = PresenterDrawingTests.blackFrame()
        defer { withExtendedLifetime(storage) {} }
        var drawing = PenDrawing()
        drawing.begin(at: point(1000, 520), ink: .green, shape: .freehand)
        drawing.extend(to: point(1050, 520))
        drawing.end()
        drawing.begin(at: point(-500, -500), ink: .red, shape: .freehand)
        drawing.extend(to: point(-400, -500))
        drawing.end()
        let rows = drawing.draw(into: frame, origin: point(980, 500))
        #expect(PresenterDrawingTests.pixel(frame, 40, 20) == RGBColor(red: 0x43, green: 0xA0, blue: 0x47))
        #expect(rows == RowBands(18..<23))
    }
}
