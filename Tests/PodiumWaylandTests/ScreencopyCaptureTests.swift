import Foundation
import Logging
import PodiumCore
import PodiumTestSupport
import PodiumWayland
import Testing

/// wlroots' screencopy in-process, against a real headless sway: its outputs found by name and
/// size, a picture of four known colours copied pixel for pixel the right way up, a still output
/// that hands on nothing, and outputs or compositors that are not there refused with 69.
@Suite(.serialized) struct ScreencopyCaptureTests {
    let sway: SwayServer
    let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    static let size = PixelSize(width: 640, height: 360)

    init() throws {
        sway = try SwayServer(width: Self.size.width, height: Self.size.height)
    }

    /// The quarters of the picture `showQuarters` puts on the output, each with its colour: all
    /// four channels differ, so a swapped channel, a mirrored or an upside-down picture shows.
    static let quarters: [(rect: PixelRect, rgb: [Int])] = [
        (PixelRect(x: 0, y: 0, width: 320, height: 180), [255, 0, 0]),
        (PixelRect(x: 320, y: 0, width: 320, height: 180), [0, 255, 0]),
        (PixelRect(x: 0, y: 180, width: 320, height: 180), [0, 0, 255]),
        (PixelRect(x: 320, y: 180, width: 320, height: 180), [0x33, 0x66, 0x99]),
    ]

    /// Makes the output's background a picture of `quarters`, unscaled: a PNG (lossless) that sway,
    /// running as another user, can read.
    func showQuarters() throws {
        var rgb = [UInt8](repeating: 0, count: Self.size.width * Self.size.height * 3)
        for quarter in Self.quarters {
            for y in quarter.rect.y..<quarter.rect.maxY {
                for x in quarter.rect.x..<quarter.rect.maxX {
                    let at = (y * Self.size.width + x) * 3
                    for channel in 0..<3 { rgb[at + channel] = UInt8(quarter.rgb[channel]) }
                }
            }
        }
        let folder = try Tools.temporaryFolder()
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        let raw = folder.appendingPathComponent("quarters.rgb"), png = folder.appendingPathComponent("quarters.png")
        try Data(rgb).write(to: raw)
        let converted = try Tools.run("ffmpeg", ["-v", "error", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s",
                                                 "\(Self.size.width)x\(Self.size.height)", "-i", raw.path,
                                                 "-frames:v", "1", "-y", png.path])
        guard converted.status == 0 else { throw TestFailure("ffmpeg cannot write the PNG: \(converted.stderr)") }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: png.path)
        try sway.swaymsg("output HEADLESS-1 bg \(png.path) center")
    }

    @Test func theOutputsAreFoundByNameAndSize() throws {
        try sway.swaymsg("create_output")
        try sway.swaymsg("output HEADLESS-2 mode 320x240")
        // No monitor named: the first output (Wayland has no primary one).
        let first = try WaylandScreenPlan.look(display: sway.display, monitor: nil, drawsCursor: false,
                                               tracksDamage: true)
        #expect(first.display == sway.display && first.output == "HEADLESS-1", "\(first)")
        #expect(first.size == Self.size, "\(first)")
        let second = try WaylandScreenPlan.look(display: sway.display, monitor: .index(1), drawsCursor: false,
                                                tracksDamage: true)
        #expect(second.output == "HEADLESS-2" && second.size == PixelSize(width: 320, height: 240), "\(second)")

        // The resolver answers `wlr` alone, with the output --monitor names.
        var lookup = SourceLookup(request: .wlr(nil), display: sway.display)
        lookup.monitor = .name("HEADLESS-2")
        let resolved = try WaylandScreenPlan.Resolver().resolve(lookup) as? WaylandScreenPlan
        #expect(resolved?.output == "HEADLESS-2" && resolved?.size == PixelSize(width: 320, height: 240),
                "\(String(describing: resolved))")
        // `wlr:NAME` names its output itself.
        let named = try WaylandScreenPlan.Resolver().resolve(SourceLookup(request: .wlr(.name("HEADLESS-2")),
                                                                          display: sway.display))
        #expect((named as? WaylandScreenPlan)?.output == "HEADLESS-2")
        #expect(try WaylandScreenPlan.Resolver().resolve(SourceLookup(request: .pipewire(1))) == nil)
    }

    @Test func aFrameHoldsTheOutputsPixelsTheRightWayUp() throws {
        try showQuarters()
        let plan = try WaylandScreenPlan.look(display: sway.display, monitor: .name("HEADLESS-1"),
                                              drawsCursor: false, tracksDamage: true)
        var grabber = try plan.openGrabber(bufferCount: 2, logger: logger)
        #expect(grabber.description == "HEADLESS-1 of \(sway.display) with screencopy")
        // swaybg draws the picture a moment after sway is told: the first frames may be grey.
        let frame = try nextFrame(of: &grabber) { $0.rgb(x: 0, y: 0) == Self.quarters[0].rgb }
        #expect(frame.size == Self.size && frame.bytesPerRow >= Self.size.width * 4, "\(frame.size)")
        for quarter in Self.quarters {
            #expect(frame.pixels(in: quarter.rect, otherThan: quarter.rgb) == 0,
                    "\(quarter.rect) should be \(quarter.rgb): \(describe(frame))")
        }

        // A new background comes as the next frame, whole.
        try sway.swaymsg("output HEADLESS-1 bg #804020 solid_color")
        let painted = try nextFrame(of: &grabber) { $0.rgb(x: 639, y: 359) == [0x80, 0x40, 0x20] }
        #expect(painted.pixels(in: PixelRect(x: 0, y: 0, size: Self.size), otherThan: [0x80, 0x40, 0x20]) == 0,
                "\(describe(painted))")
    }

    /// With damage tracking, the compositor answers only when the output changed: a still output
    /// hands on nothing after its first frame.
    @Test func aStillOutputHandsOnNothing() throws {
        try sway.paint("#336699")
        var grabber = try ScreencopyCapture(display: WaylandDisplay(name: sway.display), outputName: "HEADLESS-1",
                                            drawsCursor: false, tracksDamage: true, bufferCount: 2, logger: logger)
        _ = try nextFrame(of: &grabber) { $0.rgb(x: 320, y: 180) == [0x33, 0x66, 0x99] }
        var frames = 0
        let clock = MonotonicClock()
        for sequence in 1...30 {
            let now = clock.now()
            if case .frame = try grabber.capture(sequence: UInt64(sequence), time: now, slotTime: now,
                                                 evenIfUnchanged: false) {
                frames += 1
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(frames == 0, "\(frames) frames of an output that did not change")
    }

    @Test func outputsAndCompositorsThatAreNotThereAreRefused() throws {
        let named = #expect(throws: PodiumError.self) {
            try WaylandScreenPlan.look(display: sway.display, monitor: .name("DP-9"), drawsCursor: false,
                                       tracksDamage: true)
        }
        #expect(named?.exitCode == .unavailable && named?.message.contains("0 HEADLESS-1") == true,
                "the outputs it has: \(String(describing: named))")
        let counted = #expect(throws: PodiumError.self) {
            try WaylandScreenPlan.look(display: sway.display, monitor: .index(3), drawsCursor: false,
                                       tracksDamage: true)
        }
        #expect(counted?.exitCode == .unavailable, "\(String(describing: counted))")
        let grabbed = #expect(throws: PodiumError.self) {
            try ScreencopyCapture(display: WaylandDisplay(name: sway.display), outputName: "DP-9", drawsCursor: false,
                                  tracksDamage: true, bufferCount: 2, logger: logger)
        }
        #expect(grabbed?.exitCode == .unavailable && grabbed?.message.contains("has no output DP-9") == true,
                "\(String(describing: grabbed))")
        let nobody = try Tools.temporaryFolder().appendingPathComponent("no-such-socket").path
        let absent = #expect(throws: PodiumError.self) {
            try WaylandScreenPlan.look(display: nobody, monitor: nil, drawsCursor: false, tracksDamage: true)
        }
        #expect(absent?.exitCode == .unavailable
                && absent?.message.contains("cannot connect to the Wayland display") == true,
                "\(String(describing: absent))")
    }
}
