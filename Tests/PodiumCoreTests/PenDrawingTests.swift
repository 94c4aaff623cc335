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

    /// An overlay draws only what was added: a path's new steps, a new stroke whole; a rewrite
    /// (an undo) asks for the whole drawing again.
    @Test func progressHandsOnOnlyWhatWasAdded() {
        var drawing = PenDrawing(), progress = PenProgress()
        drawing.begin(at: point(0, 0), ink: .red, shape: .freehand)
        drawing.extend(to: point(10, 0))
        #expect(progress.onlyGrew(drawing) == false, "nothing was shown yet")
        progress.shown(drawing)
        drawing.extend(to: point(20, 0))
        drawing.extend(to: point(30, 5))
        drawing.end()
        drawing.begin(at: point(5, 5), ink: .blue, shape: .freehand)
        drawing.extend(to: point(6, 9))
        #expect(progress.onlyGrew(drawing))
        let added = progress.additions(in: drawing).map { addition in
            (addition.ink, addition.segments.map { [$0.0.x, $0.0.y, $0.1.x, $0.1.y] })
        }
        #expect(added.map(\.0) == [.red, .blue])
        #expect(added.map(\.1) == [[[10, 0, 20, 0], [20, 0, 30, 5]], [[5, 5, 6, 9]]])
        #expect(progress.additions(in: drawing).isEmpty, "nothing more")
        drawing.undo()
        #expect(!progress.onlyGrew(drawing))
    }

    /// The canvas paints a line as wide as the pen's, round at its ends, and nothing else; parts
    /// beyond the picture are left out, and the box it reports lies within it.
    @Test func theCanvasPaintsTheNibAlongEachLine() {
        let size = PixelSize(width: 40, height: 20)
        var pixels = [UInt32](repeating: 0, count: 48 * 20)
        let box = pixels.withUnsafeMutableBufferPointer { buffer -> PixelRect? in
            guard let start = buffer.baseAddress else { return nil }
            let canvas = PenCanvas(pixels: start, size: size, rowPixels: 48)
            canvas.paint([(point(5, 10), point(30, 10))], ink: .green)
            return canvas.paint([(point(35, 2), point(60, -20))], ink: .blue)
        }
        let green = PenDrawing.Ink.green.pixel
        func at(_ x: Int, _ y: Int) -> UInt32 { pixels[y * 48 + x] }
        #expect((5...30).allSatisfy { at($0, 10) == green && at($0, 8) == green && at($0, 12) == green })
        #expect(at(15, 7) == 0 && at(15, 13) == 0, "five pixels wide")
        #expect(at(3, 10) == green && at(2, 10) == 0 && at(32, 10) == green && at(33, 10) == 0, "round ends")
        #expect(at(35, 2) == PenDrawing.Ink.blue.pixel)
        #expect((0..<20).allSatisfy { row in (40..<48).allSatisfy { pixels[row * 48 + $0] == 0 } },
                "not past the width")
        #expect(box == PixelRect(x: 32, y: 0, width: 8, height: 6), "\(String(describing: box))")
    }
}
