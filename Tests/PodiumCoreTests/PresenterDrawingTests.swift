import PodiumCore
import PodiumCoreTesting
import Testing

/// The presenter's tools as pure logic: the zoom's view, the masks' rules and paint, the
/// highlight's options, disc and ring, and the keys that turn them on.
struct PresenterDrawingTests {
    /// A black 200x100 frame on the heap.
    static func blackFrame(width: Int = 200, height: Int = 100) -> (CapturedFrame, HeapStorage) {
        let storage = HeapStorage(capacity: width * height * 4)
        let pixels = storage.bytes.assumingMemoryBound(to: UInt32.self)
        pixels.update(repeating: 0xFF00_0000, count: width * height)
        let buffer = FrameBuffer(bytes: storage.bytes, capacity: width * height * 4, index: 0, storage: storage)
        let frame = CapturedFrame(buffer: buffer, size: PixelSize(width: width, height: height),
                                  bytesPerRow: width * 4, captureTime: 0, slotTime: 0, sequence: 0)
        return (frame, storage)
    }

    static func pixel(_ frame: CapturedFrame, _ x: Int, _ y: Int) -> RGBColor {
        RGBColor(pixel: (frame.buffer.bytes + y * frame.bytesPerRow).assumingMemoryBound(to: UInt32.self)[x])
    }

    @Test func theZoomIsCentredOnThePointerAndStaysInside() {
        let screen = PixelRect(x: 0, y: 0, width: 1920, height: 1080)
        #expect(ZoomView.view(of: screen, factor: 1, around: (10, 10)) == screen)
        #expect(ZoomView.view(of: screen, factor: 2, around: (960, 540))
                    == PixelRect(x: 480, y: 270, width: 960, height: 540))
        #expect(ZoomView.view(of: screen, factor: 2, around: (5, 5)) == PixelRect(x: 0, y: 0, width: 960, height: 540))
        #expect(ZoomView.view(of: screen, factor: 4, around: (1919, 1079))
                    == PixelRect(x: 1440, y: 810, width: 480, height: 270))
        // A monitor right of another, the pointer left of it: kept to its left edge.
        let right = PixelRect(x: 1920, y: 0, width: 1280, height: 720)
        #expect(ZoomView.view(of: right, factor: 2, around: (100, 300))
                    == PixelRect(x: 1920, y: 120, width: 640, height: 360))
        // Odd sides are made even.
        #expect(ZoomView.view(of: PixelRect(x: 0, y: 0, width: 1366, height: 768), factor: 4, around: (0, 0)).size
                    == PixelSize(width: 340, height: 192))
    }

    @Test func masksMatchTitlePartsClassesAndNotifications() throws {
        let masks = PrivacyMasks(windows: [try .init(parsing: "password"), try .init(parsing: "class:KeePassXC")],
                                 notifications: true)
        #expect(masks.covers(title: "My Passwords — Firefox", instance: "", className: "", isNotification: false))
        #expect(masks.covers(title: "db.kdbx", instance: "keepassxc", className: "KeePassXC", isNotification: false))
        #expect(masks.covers(title: "", instance: "dunst", className: "Dunst", isNotification: true))
        #expect(!masks.covers(title: "Slides", instance: "soffice", className: "libreoffice", isNotification: false))
        #expect(!PrivacyMasks(windows: [try .init(parsing: "class:Dunst")])
                    .covers(title: "Dunst", instance: "x", className: "y", isNotification: true),
                "class: is the class, not the title; notifications only when asked")
        #expect("\(masks)" == "'password', class:KeePassXC and notifications")
        #expect(throws: OptionParseError.self) { try PrivacyMasks.Rule(parsing: " ") }
        #expect(throws: OptionParseError.self) { try PrivacyMasks.Rule(parsing: "class:") }
    }

    @Test func masksPaintTheirAreaOfTheFrameBlackAndSayWhichRows() {
        let (frame, storage) = Self.blackFrame()
        defer { withExtendedLifetime(storage) {} }
        storage.bytes.assumingMemoryBound(to: UInt32.self).update(repeating: 0xFFFF_FFFF, count: 200 * 100)
        // The frame shows (100, 50)-(300, 150) of the screen; one window overlaps its corner, one is outside.
        let rows = PrivacyMasks.paint([PixelRect(x: 80, y: 40, width: 40, height: 30),
                                       PixelRect(x: 400, y: 60, width: 10, height: 10)],
                                      into: frame, showing: PixelRect(x: 100, y: 50, width: 200, height: 100))
        #expect(rows == RowBands(0..<20))
        #expect(Self.pixel(frame, 0, 0) == RGBColor(red: 0, green: 0, blue: 0))
        #expect(Self.pixel(frame, 19, 19) == RGBColor(red: 0, green: 0, blue: 0))
        #expect(Self.pixel(frame, 20, 19) == RGBColor(red: 255, green: 255, blue: 255))
        #expect(Self.pixel(frame, 19, 20) == RGBColor(red: 255, green: 255, blue: 255))
    }

    @Test func theHighlightReadsColourAndRadius() throws {
        #expect(try PointerHighlight(parsing: "default") == .default)
        #expect(try PointerHighlight(parsing: "red") == PointerHighlight(colour: RGBColor(red: 255, green: 0, blue: 0),
                                                                         radius: 40))
        #expect(try PointerHighlight(parsing: "#00ff00,25").radius == 25)
        #expect(try PointerHighlight(parsing: ",60") == PointerHighlight(colour: PointerHighlight.default.colour,
                                                                         radius: 60))
        for bad in ["pink", "red,0", "red,x", "red,4000"] {
            #expect(throws: OptionParseError.self, "\(bad)") { try PointerHighlight(parsing: bad) }
        }
    }

    /// Over black, the disc is 40 % of its colour inside, nothing outside; a click spreads a ring
    /// beyond it for half a second.
    @Test func theDiscSitsUnderThePointerAndAClickSpreadsARing() {
        let (frame, storage) = Self.blackFrame()
        defer { withExtendedLifetime(storage) {} }
        var marks = PointerMarks(style: PointerHighlight(colour: RGBColor(red: 255, green: 255, blue: 0), radius: 20))
        #expect(marks.draw(into: frame, at: (100, 50), time: 0) == 30..<71)
        #expect(Self.pixel(frame, 110, 50) == RGBColor(red: 102, green: 102, blue: 0))
        #expect(Self.pixel(frame, 100, 50 + 19) == RGBColor(red: 102, green: 102, blue: 0))
        #expect(Self.pixel(frame, 100 + 23, 50) == RGBColor(red: 0, green: 0, blue: 0))
        #expect(!marks.isRippling(at: 0))

        marks.clicked(at: 1_000_000_000)
        #expect(marks.isRippling(at: 1_100_000_000))
        let (later, laterStorage) = Self.blackFrame()
        defer { withExtendedLifetime(laterStorage) {} }
        // 150 ms on, the ring is about 30 px out (its outer edge 2 px more): rows beyond the disc's.
        let rows = marks.draw(into: later, at: (100, 50), time: 1_150_000_000)
        #expect(rows == 15..<86)
        let ring = (21...45).map { Self.pixel(later, 100 + $0, 50) }.filter { $0.red > 60 }
        #expect(!ring.isEmpty, "a ring beyond the disc")
        #expect(!marks.isRippling(at: 1_500_000_000))
        // Drawn outside the frame, the disc draws nothing.
        #expect(marks.draw(into: later, at: (-50, -50), time: 2_000_000_000) == nil)
    }

    @Test func hAndZTurnTheToolsOnAndAreSaid() {
        #expect(KeyCommand(key: "h") == .highlight)
        #expect(KeyCommand(key: "z") == .zoom)
        #expect(KeyCommand.help(layouts: false, window: false).contains("h highlight, z zoom"))
        let run = FakeGraph().run
        #expect(!run.control.presenter.isHighlighting)
        run.control.perform(.highlight)
        #expect(run.control.presenter.isHighlighting)
        run.control.perform(.zoom)
        run.control.perform(.zoom)
        #expect(run.control.presenter.zoom == 4)
        run.control.perform(.zoom)
        #expect(run.control.presenter.zoom == 1)
        #expect(run.control.setZoom(1, by: .control) == nil, "so already")
        #expect(run.control.takeChanges().map(\.line) == ["highlight off → on, by key", "zoom 1× → 2×, by key",
                                                  "zoom 2× → 4×, by key", "zoom 4× → 1×, by key"])
    }

    /// Where the source cannot have the tools (it does not say where the pointer is), `h` and `z`
    /// change nothing and `?` leaves them out.
    @Test func hAndZChangeNothingWhereTheToolsAreNotDrawn() {
        #expect(!KeyCommand.help(layouts: false, window: false, presenter: false).contains("highlight"))
        let control = RunControl(tuning: LiveTuning(frameRate: FrameRate(30), plannedRate: nil), layout: nil,
                                 recordings: nil, presenter: PresenterTools(unavailable: "no pointer"),
                                 hub: StreamHub(),
                                 clock: FakeClock(), logger: FakeGraph.logger, quit: {})
        control.perform(.highlight)
        control.perform(.zoom)
        #expect(!control.presenter.isHighlighting && control.presenter.zoom == 1)
        #expect(control.takeChanges().isEmpty)
    }
}

/// The packed blend against the plain formula, for every alpha and channel value on a grid.
struct PixelBlendTests {
    @Test func theBlendIsEachChannelRounded() {
        func plain(_ source: UInt32, _ destination: UInt32) -> UInt32 {
            let keep = 255 - (source >> 24)
            var result: UInt32 = 0
            for shift: UInt32 in [0, 8, 16, 24] {
                let s = (source >> shift) & 0xFF
                let d = (destination >> shift) & 0xFF
                result |= min(255, s + (d * keep + 127) / 255) << shift
            }
            return result
        }
        var mismatches: [(UInt32, UInt32)] = []
        for alpha in stride(from: 0 as UInt32, through: 255, by: 3) {
            for channel in stride(from: 0 as UInt32, through: alpha, by: 7) {
                let source = alpha << 24 | channel << 16 | (alpha - channel) << 8 | channel / 2
                for value in stride(from: 0 as UInt32, through: 255, by: 5) {
                    let destination = 0xFF00_0000 | value << 16 | (255 - value) << 8 | value / 3
                    if PixelBlend.over(source, destination) != plain(source, destination) {
                        mismatches.append((source, destination))
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count), first \(mismatches.prefix(3))")
        // Not premultiplied (a channel above alpha): capped at 255, not spilled into the next channel.
        #expect(PixelBlend.over(0x80FF_FFFF, 0xFFFF_FFFF) == 0xFFFF_FFFF)
    }
}
