import PodiumCore
import Testing

@Suite struct FitModeTests {
    let wide = PixelSize(width: 1920, height: 1080)
    let fourThree = PixelSize(width: 1024, height: 768)

    @Test func containLetterboxesWithExactAspect() {
        let placement = FitMode.contain.placement(of: wide, in: fourThree)
        #expect(placement.source == PixelRect(x: 0, y: 0, size: wide))
        #expect(placement.destination == PixelRect(x: 0, y: 96, width: 1024, height: 576),
                "576 = 1024 × 9/16; bars of 96")
        #expect(FitMode.contain.placement(of: wide, in: PixelSize(width: 1280, height: 720)).destination
                    == PixelRect(x: 0, y: 0, width: 1280, height: 720))
    }

    @Test func coverCropsTheSides() {
        let placement = FitMode.cover.placement(of: wide, in: fourThree)
        #expect(placement.destination == PixelRect(x: 0, y: 0, size: fourThree))
        #expect(placement.source == PixelRect(x: 240, y: 0, width: 1440, height: 1080), "4:3 out of the middle of 16:9")
    }

    @Test func stretchFillsEverything() {
        let placement = FitMode.stretch.placement(of: wide, in: fourThree)
        #expect(placement.source.size == wide)
        #expect(placement.destination.size == fourThree)
    }

    @Test func noneIsOneToOneCentredAndCropped() {
        let small = FitMode.none.placement(of: PixelSize(width: 640, height: 480), in: fourThree)
        #expect(small.destination == PixelRect(x: 192, y: 144, width: 640, height: 480))
        let large = FitMode.none.placement(of: wide, in: fourThree)
        #expect(large.destination == PixelRect(x: 0, y: 0, size: fourThree))
        #expect(large.source == PixelRect(x: 448, y: 156, size: fourThree))
    }

    @Test func integerUsesWholeFactors() {
        let up = FitMode.integer.placement(of: PixelSize(width: 320, height: 240), in: fourThree)
        #expect(up.destination == PixelRect(x: 32, y: 24, width: 960, height: 720), "× 3")
        let down = FitMode.integer.placement(of: wide, in: fourThree)
        #expect(down.destination == PixelRect(x: 32, y: 114, width: 960, height: 540), "÷ 2")
        #expect(down.source == PixelRect(x: 0, y: 0, size: wide))
    }

    @Test func colors() throws {
        #expect(try RGBColor(parsing: "black").pixel == 0)
        #expect(try RGBColor(parsing: "#102030") == RGBColor(red: 0x10, green: 0x20, blue: 0x30))
        #expect(try RGBColor(parsing: "ff8000").pixel == 0xFF8000)
        for bad in ["", "#12345", "#GGGGGG", "mauve", "#1234567"] {
            #expect(throws: OptionParseError.self, "\(bad)") { try RGBColor(parsing: bad) }
        }
    }
}
