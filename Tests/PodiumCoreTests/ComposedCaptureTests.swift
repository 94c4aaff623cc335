import PodiumCore
import PodiumCoreTesting
import Testing

/// Two painted sources composed by each layout: where each lands (pixels), what is redrawn when
/// one changes, and a live switch.
@Suite struct ComposedCaptureTests {
    static let red = RGBColor(red: 255, green: 0, blue: 0)
    static let blue = RGBColor(red: 0, green: 0, blue: 255)
    static let green = RGBColor(red: 0, green: 255, blue: 0)
    static let black = RGBColor(red: 0, green: 0, blue: 0)
    static let canvas = PixelSize(width: 200, height: 100)

    /// A primary 200x100 red picture and a secondary 100x100 blue one, composed at 200x100.
    struct Fixture {
        let primary = PaintedGrabber(size: PixelSize(width: 200, height: 100), color: red)
        let secondary = PaintedGrabber(size: PixelSize(width: 100, height: 100), color: blue)
        let layouts: LayoutSwitch
        let capture: ComposedCapture
        /// The scalers made.
        let log: ScalerLog
        var sequence: UInt64 = 0

        init(_ layout: Layout) {
            layouts = LayoutSwitch(layout)
            let made = ScalerLog()
            capture = ComposedCapture(sources: [primary, secondary], sizes: [primary.size, secondary.size],
                                      canvas: canvas, layouts: layouts, bufferCount: 3) { crop, output in
                let scaler = NearestScaler(crop: crop, output: output)
                made.scalers.append(scaler)
                return scaler
            }
            log = made
        }

        /// The next composed frame, or the outcome that was not one.
        mutating func next(evenIfUnchanged: Bool = false) throws -> CapturedFrame? {
            let outcome = try capture.capture(sequence: sequence, time: 0, slotTime: 0,
                                              evenIfUnchanged: evenIfUnchanged)
            guard case .frame(let frame) = outcome else { return nil }
            sequence += 1
            return frame
        }
    }

    final class ScalerLog {
        var scalers: [NearestScaler] = []
        var rowsDrawn: Int { scalers.reduce(0) { $0 + $1.rowsDrawn } }
    }

    static func color(_ frame: CapturedFrame, x: Int, y: Int) -> RGBColor {
        RGBColor(pixel: frame.buffer.bytes.load(fromByteOffset: y * frame.bytesPerRow + x * 4, as: UInt32.self))
    }

    @Test func besideFitsEachSourceInItsColumn() throws {
        var fixture = Fixture(Layout(mode: .beside, split: 0.6))
        let frame = try #require(try fixture.next())
        defer { frame.buffer.share(with: 0) }
        #expect(frame.size == Self.canvas)
        #expect(frame.changedRows == RowBands(0..<100), "the first frame is new everywhere")
        // The primary (2:1) in the left 120 columns: 120x60, centred, bars above and below.
        #expect(Self.color(frame, x: 60, y: 50) == Self.red)
        #expect(Self.color(frame, x: 60, y: 10) == Self.black)
        #expect(Self.color(frame, x: 119, y: 50) == Self.red)
        // The secondary (1:1) in the right 80 columns: 80x80, centred.
        #expect(Self.color(frame, x: 120, y: 50) == Self.blue)
        #expect(Self.color(frame, x: 199, y: 50) == Self.blue)
        #expect(Self.color(frame, x: 160, y: 5) == Self.black)
    }

    @Test func overPutsTheSecondaryInACornerWithABorder() throws {
        var fixture = Fixture(Layout(mode: .over, corner: .topRight, overSize: 0.25))
        let frame = try #require(try fixture.next())
        defer { frame.buffer.share(with: 0) }
        // 50x50 at the top right, 8 pixels in (margin) plus the 2-pixel border.
        #expect(Self.color(frame, x: 10, y: 50) == Self.red)
        #expect(Self.color(frame, x: 200 - 10 - 25, y: 10 + 25) == Self.blue)
        #expect(Self.color(frame, x: 200 - 9, y: 35) == Layout.borderColor)
        #expect(Self.color(frame, x: 200 - 5, y: 35) == Self.red, "outside the border, the primary")
    }

    @Test func oneAloneFillsThePicture() throws {
        var fixture = Fixture(Layout(mode: .secondary))
        let frame = try #require(try fixture.next())
        #expect(Self.color(frame, x: 100, y: 50) == Self.blue)
        #expect(Self.color(frame, x: 10, y: 50) == Self.black, "letterboxed: a square in a 2:1 picture")
        frame.buffer.share(with: 0)
        let looks = fixture.primary.looks
        fixture.primary.paint(Self.green, rows: 0..<100)
        #expect(try fixture.next() == nil, "a hidden source's change is not shown")
        #expect(fixture.primary.looks == looks, "nor is a hidden source looked at")
    }

    /// The primary alone at the picture's size: its own frames go on, with no copy; a switch to
    /// another layout composes again, drawn whole.
    @Test func aSourceAloneAtThePicturesSizeIsHandedThrough() throws {
        var fixture = Fixture(Layout(mode: .primary))
        let first = try #require(try fixture.next())
        #expect(Self.color(first, x: 10, y: 50) == Self.red)
        #expect(first.changedRows == nil, "the first frame handed through is new everywhere")
        #expect(fixture.log.scalers.isEmpty, "nothing scaled: nothing copied")
        first.buffer.share(with: 0)
        #expect(try fixture.next() == nil, "nothing changed")
        fixture.primary.paint(Self.green, rows: 20..<30)
        let second = try #require(try fixture.next())
        #expect(second.changedRows == RowBands(20..<30))
        #expect(Self.color(second, x: 10, y: 25) == Self.green)
        second.buffer.share(with: 0)
        let repeated = try #require(try fixture.next(evenIfUnchanged: true))
        #expect(repeated.changedRows == RowBands(), "an idle repeat changes nothing")
        repeated.buffer.share(with: 0)
        #expect(fixture.layouts.change { $0.mode = .over }?.mode == .over)
        let composed = try #require(try fixture.next())
        defer { composed.buffer.share(with: 0) }
        #expect(composed.changedRows == RowBands(0..<100))
        #expect(Self.color(composed, x: 10, y: 25) == Self.green && !fixture.log.scalers.isEmpty)
    }

    /// A source gone for now (a camera unplugged) leaves the picture to the other one alone; back,
    /// the layout is as it was.
    @Test func aSourceGoneLeavesThePictureToTheOther() throws {
        var fixture = Fixture(Layout(mode: .over, corner: .topRight, overSize: 0.25))
        let corner = (x: 200 - 10 - 25, y: 10 + 25)
        let first = try #require(try fixture.next())
        #expect(Self.color(first, x: corner.x, y: corner.y) == Self.blue)
        first.buffer.share(with: 0)
        fixture.secondary.setGone(true)
        let alone = try #require(try fixture.next(), "the layout changed: a frame")
        #expect(Self.color(alone, x: corner.x, y: corner.y) == Self.red, "the primary alone, no stale corner")
        alone.buffer.share(with: 0)
        let looks = fixture.secondary.looks
        #expect(try fixture.next() == nil)
        #expect(fixture.secondary.looks > looks, "a source gone is looked at until it is back")
        fixture.secondary.setGone(false)
        let back = try #require(try fixture.next())
        defer { back.buffer.share(with: 0) }
        #expect(Self.color(back, x: corner.x, y: corner.y) == Self.blue)
        #expect(back.changedRows == RowBands(0..<100), "drawn whole")
    }

    @Test func aChangeRedrawsOnlyItsRowsInItsPane() throws {
        var fixture = Fixture(Layout(mode: .beside, split: 0.5))
        try #require(try fixture.next()).buffer.share(with: 0)
        #expect(try fixture.next() == nil, "nothing changed: nothing composed")
        let before = fixture.log.rowsDrawn
        // The secondary (100x100 in a 100x100 column, one to one) changes in rows 40..<50.
        fixture.secondary.paint(Self.green, rows: 40..<50)
        let frame = try #require(try fixture.next())
        #expect(frame.changedRows == RowBands(40..<50))
        #expect(fixture.log.rowsDrawn - before == 10, "the still primary's column is not drawn again")
        #expect(Self.color(frame, x: 150, y: 45) == Self.green)
        #expect(Self.color(frame, x: 150, y: 55) == Self.blue)
        #expect(Self.color(frame, x: 50, y: 45) == Self.red)
        frame.buffer.share(with: 0)
    }

    @Test func aBufferBehindIsBroughtUpToDate() throws {
        var fixture = Fixture(Layout(mode: .beside, split: 0.5))
        // Hold each frame, so each comes from another buffer of the pool of three.
        var held: [CapturedFrame] = []
        held.append(try #require(try fixture.next()))
        fixture.secondary.paint(Self.green, rows: 0..<10)
        held.append(try #require(try fixture.next()))
        fixture.secondary.paint(Self.green, rows: 90..<100)
        let third = try #require(try fixture.next())
        #expect(Self.color(third, x: 150, y: 5) == Self.green, "an earlier change, drawn in this buffer too")
        #expect(Self.color(third, x: 150, y: 95) == Self.green)
        // The buffer that held the second frame is the one taken next: behind by the third's change.
        third.buffer.share(with: 0)
        for frame in held { frame.buffer.share(with: 0) }
        fixture.secondary.paint(Self.green, rows: 50..<60)
        let fourth = try #require(try fixture.next())
        defer { fourth.buffer.share(with: 0) }
        for y in [5, 55, 95] { #expect(Self.color(fourth, x: 150, y: y) == Self.green, "row \(y)") }
        #expect(Self.color(fourth, x: 150, y: 30) == Self.blue)
    }

    @Test func aSwitchShowsInTheNextFrameDrawnWhole() throws {
        var fixture = Fixture(Layout(mode: .beside))
        try #require(try fixture.next()).buffer.share(with: 0)
        #expect(fixture.layouts.change { $0.cycle() }?.mode == .over)
        let frame = try #require(try fixture.next(), "a switch is a change")
        defer { frame.buffer.share(with: 0) }
        #expect(frame.changedRows == RowBands(0..<100))
        #expect(Self.color(frame, x: 10, y: 50) == Self.red, "the primary fills the picture now")
        #expect(fixture.layouts.change { $0.swapped = false } == nil, "no change, no new layout")
    }

    @Test func theSplitAndTheCornerPictureResizeInStepsWithinTheirLimits() {
        var layout = Layout(split: 0.6, splitRange: 0.5...0.7)
        layout.resize(by: 1)
        #expect(layout.split == 0.65)
        layout.resize(by: 3)
        #expect(layout.split == 0.7)
        layout.resize(by: -10)
        #expect(layout.split == 0.5)
        #expect(Layout(split: 0.95, splitRange: 0.2...0.8).split == 0.8)
        #expect(layout.description == "beside 50%")
        layout.swapped = true
        layout.cycle()
        layout.resize(by: -1)
        #expect(layout.description == "over top-right 20%, swapped")
        #expect(layout.split == 0.5, "the split stays for beside")
        layout.resize(by: 20)
        #expect(layout.overSize == Layout.overSizeRange.upperBound)
        layout.cycle()
        let alone = layout
        layout.resize(by: 1)
        #expect(layout == alone, "one source alone has nothing to resize")
    }

    @Test func eachSourceHasItsOwnFit() throws {
        var fixture = Fixture(Layout(mode: .beside, split: 0.5, fits: [.cover, .contain]))
        let frame = try #require(try fixture.next())
        defer { frame.buffer.share(with: 0) }
        #expect(Self.color(frame, x: 50, y: 5) == Self.red, "cover: the primary fills its column, no bars")
        #expect(Self.color(frame, x: 150, y: 5) == Self.blue, "contain: a square in a square column")
    }

    @Test func swappedRolesSwapColumns() throws {
        var fixture = Fixture(Layout(mode: .beside, swapped: true, split: 0.5))
        let frame = try #require(try fixture.next())
        defer { frame.buffer.share(with: 0) }
        #expect(Self.color(frame, x: 50, y: 50) == Self.blue, "the secondary is the primary now, on the left")
        #expect(Self.color(frame, x: 150, y: 50) == Self.red)
    }
}
