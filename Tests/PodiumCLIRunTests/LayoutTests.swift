import Foundation
import PodiumTestSupport
import Testing

/// Two sources composed into one picture (`--source` twice, `--layout`), checked on the pixels of
/// the recording (decoded by ffmpeg) and of the mirror window (grabbed by ffmpeg), before and
/// after a live switch.
@Suite(.serialized, .programThreads) struct LayoutTests {
    static let red: (UInt8, UInt8, UInt8) = (0, 0, 255)
    static let blue: (UInt8, UInt8, UInt8) = (255, 0, 0)

    /// Two 320x240 displays, the first all red, the second all blue (BGR order for `fill`).
    func twoScreens() throws -> (XvfbServer, XvfbServer) {
        let first = try XvfbServer(width: 320, height: 240)
        let second = try XvfbServer(width: 320, height: 240)
        try Painter(display: first.display).fill(x: 0, y: 0, width: 320, height: 240, bgra: Self.red)
        try Painter(display: second.display).fill(x: 0, y: 0, width: 320, height: 240, bgra: Self.blue)
        return (first, second)
    }

    /// The colour at (x, y) of a 320x240 RGB picture, by name: red, blue, black, or what it is.
    static func color(_ rgb: [UInt8], x: Int, y: Int, width: Int = 320) -> String {
        let index = (y * width + x) * 3
        guard index + 2 < rgb.count else { return "outside" }
        let (r, g, b) = (Int(rgb[index]), Int(rgb[index + 1]), Int(rgb[index + 2]))
        if r > 200 && g < 60 && b < 60 { return "red" }
        if b > 200 && r < 60 && g < 60 { return "blue" }
        if r < 40 && g < 40 && b < 40 { return "black" }
        return "rgb(\(r),\(g),\(b))"
    }

    @Test func besideAndOverPlaceEachSourceInTheRecording() async throws {
        let (first, second) = try twoScreens()
        let folder = try Tools.temporaryFolder()
        for layout in ["beside", "over"] {
            let output = folder.appendingPathComponent("\(layout).mkv").path
            let result = try await ProgramRun.podium(["stream", "--source", first.display, "--source", second.display,
                                                      "--layout", layout, "--split", "0.5", "--no-cursor",
                                                      "--duration", "2s", "--to", output])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("\(layout) "), "the start line says the layout: \(result.stderr)")
            let probe = try Tools.probe(output)
            #expect(probe.width == 320 && probe.height == 240)
            let rgb = try Tools.decodeFrame(output, index: probe.frames - 1, pixelFormat: "rgb24")
            if layout == "beside" {
                // Each 320x240 source fitted in a 160-column half: 160x120, 60 rows from the top.
                #expect(Self.color(rgb, x: 80, y: 120) == "red")
                #expect(Self.color(rgb, x: 240, y: 120) == "blue")
                #expect(Self.color(rgb, x: 80, y: 20) == "black")
                #expect(Self.color(rgb, x: 240, y: 220) == "black")
            } else {
                // A quarter of the width (80x60) 8 pixels and a border in from the top right.
                #expect(Self.color(rgb, x: 270, y: 40) == "blue")
                #expect(Self.color(rgb, x: 160, y: 120) == "red")
                #expect(Self.color(rgb, x: 270, y: 120) == "red")
            }
        }
    }

    /// `l` in the mirror window goes from `beside` to `over`: the window and the recording both
    /// change, with no keyframe beyond the schedule's and every frame decodable.
    @Test func aKeySwitchesTheLayoutInTheWindowAndTheRecording() async throws {
        let (first, second) = try twoScreens()
        let projector = try XvfbServer(width: 320, height: 240)
        let folder = try Tools.temporaryFolder()
        let output = folder.appendingPathComponent("switch.mkv").path
        let run = ProgramRun.start([
                                    "mirror", "--source", first.display, "--source", second.display, "--split", "0.5",
                                    "--on-display", projector.display, "--no-cursor", "--keyint", "2s",
                                    "--duration", "30s", "--to", output,
                                    ])
        try await run.waitForStderr(containing: "showing on")
        try await Task.sleep(for: .seconds(1))
        func shown() throws -> [UInt8] {
            let bgra = try Tools.grabScreen(projector.display, width: 320, height: 240)
            var rgb: [UInt8] = []
            for pixel in stride(from: 0, to: bgra.count, by: 4) {
                rgb.append(bgra[pixel + 2])
                rgb.append(bgra[pixel + 1])
                rgb.append(bgra[pixel])
            }
            return rgb
        }
        let before = try shown()
        #expect(Self.color(before, x: 80, y: 120) == "red")
        #expect(Self.color(before, x: 240, y: 120) == "blue")
        try Painter(display: projector.display).pressKey(keysym: 0x6C)
        try await run.waitForStderr(containing: "→ over top-right 25%, by window")
        try await Task.sleep(for: .seconds(0.5))
        let after = try shown()
        #expect(Self.color(after, x: 270, y: 40) == "blue")
        #expect(Self.color(after, x: 240, y: 120) == "red", "the primary fills the picture under the corner")
        try await Task.sleep(for: .seconds(1))
        let result = try await run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")

        let probe = try Tools.probe(output)
        let opening = try Tools.decodeFrame(output, index: 0, pixelFormat: "rgb24")
        let last = try Tools.decodeFrame(output, index: probe.frames - 1, pixelFormat: "rgb24")
        #expect(Self.color(opening, x: 240, y: 120) == "blue", "the recording began beside")
        #expect(Self.color(last, x: 240, y: 120) == "red", "and ended over")
        let keyframes = try Tools.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-skip_frame", "nokey",
                                                  "-count_frames", "-show_entries", "stream=nb_read_frames",
                                                  "-of", "csv=p=0", output])
        let duration = probe.duration ?? 0
        let scheduled = Int(duration / 2) + 1
        #expect(Int(keyframes.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 99 <= scheduled,
                "a switch is no keyframe of its own: \(keyframes.stdout) in \(duration) s")
    }

    /// A window (covered by another) beside another display's monitor: the window's own colour
    /// lands in its part of the picture in the recording, though something else covers it on screen.
    @Test func aCoveredWindowBesideAnotherDisplay() async throws {
        let desktop = try XvfbServer(width: 640, height: 480)
        let manager = try WindowManager(display: desktop.display)
        defer { withExtendedLifetime(manager) {} }
        let slides = try TestWindow(display: desktop.display, title: "Slides", x: 40, y: 40, width: 320, height: 240,
                                    rgb: 0xC00000)
        try slides.waitUntilShown()
        let cover = try TestWindow(display: desktop.display, title: "cover", x: 40, y: 40, width: 320, height: 240,
                                   rgb: 0x00A000)
        try cover.waitUntilShown()
        let other = try XvfbServer(width: 320, height: 240)
        try Painter(display: other.display).fill(x: 0, y: 0, width: 320, height: 240, bgra: Self.blue)
        let output = try Tools.temporaryFolder().appendingPathComponent("window-beside.mkv").path
        let result = try await ProgramRun.podium(["stream", "--display", desktop.display, "--window", "Slides",
                                                  "--source", other.display, "--split", "0.5", "--no-cursor",
                                                  "--duration", "2s", "--to", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("window 'Slides'"), "\(result.stderr)")
        let probe = try Tools.probe(output)
        #expect(probe.width == 320 && probe.height == 240, "the larger of the two: both are 320x240")
        let rgb = try Tools.decodeFrame(output, index: probe.frames - 1, pixelFormat: "rgb24")
        let index = (120 * 320 + 80) * 3
        #expect(rgb[index] > 150 && rgb[index + 1] < 60, "the window's red, not the cover's green")
        #expect(Self.color(rgb, x: 240, y: 120) == "blue")
    }
}
