import PodiumCore
import Testing

/// Where the mirror window goes: which monitor, and where a picture-in-picture window sits.
@Suite struct WindowPlacementTests {
    let laptop = Monitor(index: 0, name: "eDP-1", rect: PixelRect(x: 0, y: 0, width: 1920, height: 1080),
                         isPrimary: true)
    let projector = Monitor(index: 1, name: "HDMI-1", rect: PixelRect(x: 1920, y: 0, width: 1280, height: 720),
                            isPrimary: false)
    let screen = PixelSize(width: 3200, height: 1080)

    @Test func defaultIsTheLargestMonitorNotCaptured() {
        let target = WindowTarget(monitor: nil, avoiding: [laptop.rect])
        #expect(target.search([laptop, projector], screen: screen) == .found(projector))
        #expect(target.search([laptop], screen: screen) == .absent, "only the captured one: wait for a projector")
        #expect(WindowTarget(monitor: nil, avoiding: []).search([laptop, projector], screen: screen) == .found(laptop),
                "another display: its largest")
    }

    /// Two sources on one screen: the window covers neither, even when one is the largest.
    @Test func twoCapturedMonitorsAreBothAvoided() {
        let external = Monitor(index: 2, name: "DP-2", rect: PixelRect(x: 3200, y: 0, width: 2560, height: 1440),
                               isPrimary: false)
        let target = WindowTarget(monitor: nil, avoiding: [laptop.rect, external.rect])
        #expect(target.search([laptop, projector, external], screen: screen) == .found(projector))
        #expect(WindowTarget(monitor: .name("DP-2"), avoiding: [laptop.rect, external.rect])
                    .search([laptop, projector, external], screen: screen) == .coversCapture(external))
    }

    @Test func aNamedMonitorIsWaitedForOrRefusedWhenItCoversTheCapture() {
        #expect(WindowTarget(monitor: .name("HDMI-1"), avoiding: [laptop.rect])
                    .search([laptop], screen: screen) == .absent)
        #expect(WindowTarget(monitor: .name("HDMI-1"), avoiding: [laptop.rect])
                    .search([laptop, projector], screen: screen) == .found(projector))
        #expect(WindowTarget(monitor: .index(0), avoiding: [laptop.rect])
                    .search([laptop, projector], screen: screen) == .coversCapture(laptop))
        let mirrored = Monitor(index: 1, name: "HDMI-1", rect: PixelRect(x: 0, y: 0, width: 1280, height: 720),
                               isPrimary: false)
        #expect(WindowTarget(monitor: .name("HDMI-1"), avoiding: [laptop.rect])
                    .search([laptop, mirrored], screen: screen) == .coversCapture(mirrored))
    }

    @Test func withoutMonitorsTheScreenIsOne() {
        let whole = PixelRect(x: 0, y: 0, size: PixelSize(width: 800, height: 600))
        #expect(WindowTarget(monitor: nil, avoiding: []).search([], screen: whole.size)
                    == .found(Monitor(index: 0, name: "screen", rect: whole, isPrimary: true)))
    }

    @Test func pictureInPictureSitsInItsCornerWithAMargin() {
        let monitor = projector.rect
        let margin = PictureInPicture.margin(on: monitor)
        #expect(margin == 18, "720 / 40")
        let defaultSize = PictureInPicture(corner: .topRight, size: nil)
            .frame(on: monitor, picture: PixelSize(width: 1920, height: 1080))
        #expect(defaultSize == PixelRect(x: 1920 + 1280 - 18 - 320, y: 18, width: 320, height: 180),
                "a quarter of the width, the picture's aspect")
        let given = PictureInPicture(corner: .bottomLeft, size: PixelSize(width: 200, height: 150))
            .frame(on: monitor, picture: PixelSize(width: 1920, height: 1080))
        #expect(given == PixelRect(x: 1920 + 18, y: 720 - 18 - 150, width: 200, height: 150))
    }

    @Test func resizingKeepsTheAspectWithinLimits() {
        let picture = PixelSize(width: 1600, height: 900)
        let bounds = PixelSize(width: 1280, height: 720)
        #expect(PictureInPicture.clamped(width: 400, aspect: picture, within: bounds)
                    == PixelSize(width: 400, height: 225))
        #expect(PictureInPicture.clamped(width: 10, aspect: picture, within: bounds)
                    == PixelSize(width: 114, height: 64), "the height reaches 64 first")
        #expect(PictureInPicture.clamped(width: 5000, aspect: picture, within: bounds)
                    == PixelSize(width: 1280, height: 720))
        let tall = PixelSize(width: 900, height: 1600)
        #expect(PictureInPicture.clamped(width: 5000, aspect: tall, within: bounds)
                    == PixelSize(width: 405, height: 720), "a portrait picture stops at the height")
    }

    @Test func pipSizeProblems() {
        let monitor = projector.rect
        #expect(PictureInPicture(corner: .topLeft, size: PixelSize(width: 63, height: 100)).sizeProblem(on: nil) != nil)
        #expect(PictureInPicture(corner: .topLeft, size: PixelSize(width: 1281, height: 100))
                    .sizeProblem(on: monitor) != nil)
        #expect(PictureInPicture(corner: .topLeft, size: PixelSize(width: 1281, height: 100))
                    .sizeProblem(on: nil) == nil, "no monitor known yet")
        #expect(PictureInPicture(corner: .topLeft, size: PixelSize(width: 64, height: 64))
                    .sizeProblem(on: monitor) == nil)
    }
}
