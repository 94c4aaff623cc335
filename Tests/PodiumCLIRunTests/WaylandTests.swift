import Foundation
import PodiumTestSupport
import Testing

/// Wayland screens through wlroots' screencopy (`--source wlr`), against a real headless sway:
/// its outputs listed, a new resolution followed, a compositor that goes away ending the run
/// cleanly, masks and the pen. Known colours and a still screen's cost: podiumTests'
/// `WaylandStillScreenTests` (the cost is the process's CPU).
@Suite(.serialized, .programThreads) struct WaylandTests {
    let sway: SwayServer
    let folder: URL

    init() throws {
        sway = try SwayServer(width: 1280, height: 720)
        folder = try Tools.temporaryFolder()
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    @Test func displaysListsTheOutputsByNameAtTheirPlaces() async throws {
        try sway.swaymsg("create_output")
        try sway.swaymsg("output HEADLESS-2 mode 800x600")
        let listed = try await ProgramRun.podium(["displays", "--display", sway.display])
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.stdout.contains("wayland display \(sway.display): 2 outputs (--source wlr --monitor NAME)"),
                "\(listed.stdout)")
        #expect(listed.stdout.contains("  0  HEADLESS-1  1280x720+0+0"), "\(listed.stdout)")
        #expect(listed.stdout.contains("  1  HEADLESS-2  800x600+1280+0"), "\(listed.stdout)")
        let json = try await ProgramRun.podium(["displays", "--display", sway.display, "--json"])
        let decoded = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let outputs = decoded?["outputs"] as? [[String: Any]]
        #expect(outputs?.compactMap { $0["name"] as? String } == ["HEADLESS-1", "HEADLESS-2"], "\(json.stdout)")
        #expect(decoded?["screencopy"] as? Bool == true, "\(json.stdout)")

        // A Wayland session without X: its compositor, chosen by itself.
        let automatic = try await ProgramRun.podium(["stream", "--to", path("auto.mkv"), "-t", "1s"],
                                                    environment: ["DISPLAY": "", "WAYLAND_DISPLAY": sway.display])
        #expect(automatic.status == 0 && automatic.stderr.contains("capturing HEADLESS-1 of \(sway.display) with "
                                                                     + "screencopy"), "\(automatic.stderr)")
        #expect(automatic.stderr.contains("a Wayland session: capturing its compositor's output, as --source wlr"))

        // The second output, by name: its own size and colour.
        try sway.paint("#00ff00", output: "HEADLESS-2")
        let recording = path("second.mkv")
        let run = try await ProgramRun.podium(["stream", "--source", "wlr", "--display", sway.display,
                                               "--monitor", "HEADLESS-2", "--to", recording, "-t", "2s"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("capturing HEADLESS-2 of \(sway.display) with screencopy"), "\(run.stderr)")
        let probed = try Tools.probe(recording)
        #expect(probed.width == 800 && probed.height == 600)
        let colours = try Tools.centreColours(recording)
        #expect(!colours.isEmpty && colours.allSatisfy { abs($0.rgb[0]) < 8 && $0.rgb[1] > 245 && $0.rgb[2] < 8 },
                "\(colours)")
    }

    @Test func aNewResolutionIsFollowedWithoutARestart() async throws {
        try sway.paint("#0000ff")
        let recording = path("resized.mkv")
        let run = ProgramRun.start(["stream", "--source", "wlr", "--display", sway.display,
                                    "--to", recording, "-t", "5s"])
        try await run.waitForStderr(containing: "capturing")
        try await Task.sleep(for: .seconds(2))
        try sway.swaymsg("output HEADLESS-1 mode 800x600")
        try sway.paint("#ffff00")
        let result = try await run.wait()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("HEADLESS-1 is now 800x600 (was 1280x720); capturing that"), "\(result.stderr)")
        // The recording keeps its size; the new picture is fitted into it (its centre yellow).
        #expect(try Tools.probe(recording).width == 1280)
        let last = try #require(try Tools.centreColours(recording).last)
        #expect(last.rgb[0] > 245 && last.rgb[1] > 245 && last.rgb[2] < 10, "\(last)")
    }

    @Test func aCompositorThatGoesAwayEndsTheRunWithItsRecordingWhole() async throws {
        let (result, decodes) = try await ProgramRun.streamLosingTheSource(
            ["--source", "wlr", "--display", sway.display], recording: path("lost.mkv")) { sway.stop() }
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("lost the Wayland display '\(sway.display)'"), "\(result.stderr)")
        #expect(decodes)
    }

    /// `--mask-window` on a sway output: the window sway's tree names is black in every frame,
    /// where it is and where it moves; another window shows.
    @Test func aMaskedWindowIsBlackWhereverItGoes() async throws {
        try sway.paint("#00ff00")
        try sway.openWindow("Public Notes", colour: "ff00ff", at: (x: 800, y: 80, width: 320, height: 240))
        try sway.openWindow("Secret Notes", colour: "ff00ff", at: (x: 100, y: 100, width: 400, height: 300))
        let recording = path("masked.mkv")
        let run = ProgramRun.start(["stream", "--source", "wlr", "--display", sway.display,
                                    "--mask-window", "secret", "--to", recording, "-t", "3s"])
        try await run.waitForStderr(containing: "capturing")
        try await Task.sleep(for: .seconds(1.2))
        try sway.move("Secret Notes", to: (x: 560, y: 380, width: 400, height: 300))
        let result = try await run.wait(timeout: 20)
        #expect(result.status == 0, "\(result.stderr)")
        // A quarter of the size: Public at (200, 20) 80x60; Secret at (25, 25) then (140, 95), 100x75.
        // A still screen is sent when it changes: the first picture, the move, the end.
        let frames = try Tools.rgbFrames(recording, size: (width: 320, height: 180))
        #expect(frames.count >= 2, "\(frames.count) frames")
        func colour(_ pixels: [UInt8], _ x: Int, _ y: Int) -> [Int] {
            (0..<3).map { Int(pixels[(y * 320 + x) * 3 + $0]) }
        }
        func magenta(_ rgb: [Int]) -> Bool { rgb[0] > 128 && rgb[1] < 100 && rgb[2] > 128 }
        for (index, frame) in frames.enumerated() {
            // Not one magenta pixel but Public's own.
            var leaked = 0
            for y in 0..<180 {
                for x in 0..<320 where !(198...282).contains(x) || !(18...82).contains(y) {
                    if magenta(colour(frame.pixels, x, y)) { leaked += 1 }
                }
            }
            #expect(leaked == 0, "frame \(index) at \(frame.time) s shows \(leaked) pixels of the masked window")
            #expect(magenta(colour(frame.pixels, 240, 50)), "Public Notes shows: \(colour(frame.pixels, 240, 50))")
        }
        let first = try #require(frames.first), last = try #require(frames.last)
        #expect(colour(first.pixels, 75, 62).allSatisfy { $0 < 24 }, "black where Secret Notes was")
        #expect(colour(last.pixels, 190, 132).allSatisfy { $0 < 24 }, "black where it went")
        #expect(colour(last.pixels, 75, 62)[1] > 200, "green where it no longer is")
    }

    /// The pen on a sway output (`podium control pen on`): a layer surface above the windows takes
    /// the pointer's drag (a virtual pointer's, sway having no devices) and wtype's keys, and the
    /// output's capture has the strokes; Escape ends pen mode and takes them away.
    @Test func thePenDrawsAboveTheWindowsOfASwayOutput() async throws {
        try sway.paint("#404040")
        try sway.openWindow("Slides", colour: "ffffff", at: (x: 100, y: 100, width: 800, height: 500))
        let recording = path("pen.mkv")
        let run = ProgramRun.start(["stream", "--source", "wlr", "--display", sway.display,
                                    "--control", "--to", recording, "-t", "30s"])
        defer { run.stop() }
        try await run.waitForStderr(containing: "capturing")
        let on = try await ProgramRun.podium(["control", "--socket", run.controlSocket, "pen", "on"])
        #expect(on.status == 0, "\(on.stderr)")
        try await run.waitForStderr(containing: "pen off → on")
        let wayland = ["WAYLAND_DISPLAY": sway.display]
        func drag(_ points: [(Int, Int)]) throws {
            let steps = ["wait:300"] + points.prefix(1).map { "\($0.0),\($0.1)" } + ["down"]
                + points.dropFirst().map { "\($0.0),\($0.1)" } + ["up"]
            let dragged = try Tools.start(Tools.built("wayland-virtual-pointer").path, ["1280", "720"] + steps,
                                          environment: wayland).wait(timeout: 20)
            #expect(dragged.status == 0, "\(dragged.stderr)")
        }
        // A red stroke across the window, then a yellow rectangle (the keys y and s).
        try drag(stride(from: 150, through: 650, by: 25).map { ($0, 300) })
        let typed = try Tools.start("wtype", ["-s", "400", "ys"], environment: wayland).wait(timeout: 20)
        #expect(typed.status == 0, "\(typed.stderr)")
        try drag([(200, 450), (300, 500), (400, 550)])
        try await Task.sleep(for: .seconds(1))
        let escaped = try Tools.start("wtype", ["-s", "400", "-k", "Escape"], environment: wayland).wait(timeout: 20)
        #expect(escaped.status == 0, "\(escaped.stderr)")
        try await run.waitForStderr(containing: "pen on → off, by key")
        try await Task.sleep(for: .seconds(1))
        let result = try await run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")

        // At half size: the stroke at y 150 from x 75 to 325, the rectangle's top at y 225 from 100 to 200.
        let frames = try Tools.rgbFrames(recording, size: (width: 640, height: 360))
        func colour(_ pixels: [UInt8], _ x: Int, _ y: Int) -> [Int] {
            (0..<3).map { Int(pixels[(y * 640 + x) * 3 + $0]) }
        }
        func red(_ rgb: [Int]) -> Bool { rgb[0] > 180 && rgb[1] < 110 && rgb[2] < 110 }
        func yellow(_ rgb: [Int]) -> Bool { rgb[0] > 200 && rgb[1] > 180 && rgb[2] < 110 }
        let drawn = try #require(frames.last { red(colour($0.pixels, 200, 150)) }, "no frame with the stroke")
        #expect(yellow(colour(drawn.pixels, 150, 225)), "the rectangle's top: \(colour(drawn.pixels, 150, 225))")
        #expect(colour(drawn.pixels, 150, 250).allSatisfy { $0 > 230 }, "the window inside the rectangle")
        #expect(colour(drawn.pixels, 200, 170).allSatisfy { $0 > 230 }, "the window beside the stroke")
        let last = try #require(frames.last)
        #expect(last.time > drawn.time && colour(last.pixels, 200, 150).allSatisfy { $0 > 230 },
                "the stroke went with pen mode: \(colour(last.pixels, 200, 150))")
    }
}
