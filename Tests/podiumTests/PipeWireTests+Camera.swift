import Foundation
import PodiumTestSupport
import Testing

/// A camera (`--source camera[:NAME]`): a PipeWire video source found by name, listed by
/// `podium sources --video`, and laid over a screen, as a presenter's face in a corner.
extension PipeWireTests {
    @Test func camerasAreListedByName() throws {
        let (producer, _) = try server.provideVideo(colour: "336699", name: "podium-test-camera")
        defer { _ = try? producer.interrupt(timeout: 5) }
        let listed = try Tools.podium(["sources", "--video"], environment: environment)
        #expect(listed.status == 0 && listed.stdout.contains("--source camera:podium-test-camera"), "\(listed)")
        let json = try Tools.podium(["sources", "--video", "--json"], environment: environment)
        let cameras = (try? JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["cameras"]
        let names = (cameras as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(names == ["podium-test-camera"], "\(json)")
    }

    /// The screen whole, the camera in the top-right corner over it, in one recording, and the
    /// presenter's highlight around the pointer on the screen's part: one of two sources saying
    /// where the pointer is gives the composed picture its tools.
    @Test func aCameraInTheCornerOfTheScreen() throws {
        let screen = try XvfbServer(width: 640, height: 360)
        try Painter(display: screen.display).fill(x: 0, y: 0, width: 640, height: 360, bgra: (0x20, 0xC0, 0x40))
        try Tools.xdotool(screen.display, "mousemove", "170", "250")
        let (producer, _) = try server.provideVideo(colour: "336699", name: "podium-test-face")
        defer { _ = try? producer.interrupt(timeout: 5) }
        let recording = folder.appendingPathComponent("over.mkv").path
        let run = try Tools.podium(["stream", "--display", screen.display, "--source", screen.display, "--source",
                                    "camera:face", "--layout", "over", "--no-cursor", "--highlight-pointer=#ff0000,60",
                                    "--to", recording, "-t", "3s"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("and camera podium-test-face (gst-launch-1.0), over top-right"), "\(run.stderr)")
        #expect(try Tools.probe(recording).width == 640)
        // On a 32x18 sampling (20 px a sample): the corner the camera's blue, the middle the screen's
        // green, and around the pointer 40 % red over the green.
        let frames = try Tools.rgbFrames(recording, size: (width: 32, height: 18))
        func colour(_ frame: Int, _ x: Int, _ y: Int) -> [Int] {
            (0..<3).map { Int(frames[frame].pixels[(y * 32 + x) * 3 + $0]) }
        }
        func near(_ got: [Int], _ want: [Int], within: Int = 12) -> Bool {
            zip(got, want).allSatisfy { abs($0 - $1) < within }
        }
        let last = frames.count - 1
        #expect(frames.count >= 60, "\(frames.count) frames")
        #expect(near(colour(last, 28, 3), [0x33, 0x66, 0x99]), "corner \(colour(last, 28, 3))")
        #expect(near(colour(last, 16, 12), [0x40, 0xC0, 0x20]), "middle \(colour(last, 16, 12))")
        #expect(near(colour(last, 8, 12), [140, 115, 19], within: 20), "at the pointer \(colour(last, 8, 12))")
    }

    /// A webcam's YUYV pictures, or its JPEGs, converted to the screen's BGRA, in their colours.
    @Test(arguments: ["YUY2", "JPEG"]) func aWebcamsPicturesAreTaken(format: String) throws {
        let (producer, _) = try server.provideVideo(colour: "336699", name: "podium-test-webcam", format: format)
        defer { _ = try? producer.interrupt(timeout: 5) }
        let recording = folder.appendingPathComponent("\(format).mkv").path
        let run = try Tools.podium(["stream", "--source", "camera:webcam", "--to", recording, "-t", "2s"],
                                   environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Tools.probe(recording).width == 640)
        let (frames, coloured) = try framesAndColoured(recording, red: 0x33, green: 0x66, blue: 0x99, within: 8)
        #expect(frames >= 10 && frames == coloured, "\(coloured) of \(frames) frames the camera's colour")
    }

    /// JPEGs whose lengths vary (a moving picture) are taken whole, every one of them: a producer
    /// that sized its buffers by its first JPEG cut the larger ones short, a third of them.
    @Test func aWebcamsMovingJPEGsAreTakenAtItsRate() throws {
        let (producer, _) = try server.provideVideo(colour: "336699", name: "podium-test-moving", format: "JPEG",
                                                    moving: true)
        defer { _ = try? producer.interrupt(timeout: 5) }
        let recording = folder.appendingPathComponent("moving.mkv").path
        let run = try Tools.podium(["stream", "--source", "camera:moving", "--to", recording, "-t", "3s"],
                                   environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let frames = try Tools.probe(recording).frames
        #expect(frames >= 75, "\(frames) frames in 3 s of a 30 fps camera")
    }

    /// A camera that goes away is said once; the screen goes on alone, and the recording is whole.
    @Test func aCameraThatGoesAwayLeavesTheScreenGoingOn() throws {
        let screen = try XvfbServer(width: 640, height: 360)
        try Painter(display: screen.display).fill(x: 0, y: 0, width: 640, height: 360, bgra: (0x20, 0xC0, 0x40))
        let (producer, _) = try server.provideVideo(colour: "336699", name: "podium-test-leaving")
        let recording = folder.appendingPathComponent("left.mkv").path
        let run = try Tools.start(Tools.podium.path, ["stream", "--display", screen.display, "--source",
                                                      screen.display, "--source", "camera", "--layout", "over",
                                                      "--to", recording, "-t", "4s"], environment: environment)
        try run.waitForStderr(containing: "capturing")
        Thread.sleep(forTimeInterval: 1)
        _ = try producer.interrupt(timeout: 5)
        let result = try run.wait(timeout: 20)
        #expect(result.status == 0, "\(result.stderr)")
        let said = result.stderr.components(separatedBy: "paused: its producer stopped sending").count - 1
        #expect(said == 1, "\(result.stderr)")
        #expect((try Tools.probe(recording).duration ?? 0) > 3.5)
        let decoded = try Tools.run("ffmpeg", ["-v", "error", "-i", recording, "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded)")
        // The corner shows the screen again, not the camera's last picture.
        let last = try #require(try Tools.rgbFrames(recording, size: (width: 32, height: 18)).last)
        let corner = (0..<3).map { Int(last.pixels[(3 * 32 + 28) * 3 + $0]) }
        #expect(zip(corner, [0x40, 0xC0, 0x20]).allSatisfy { abs($0 - $1) < 12 }, "corner \(corner)")
    }

    @Test func aCameraThatIsNotThereIsRefusedWithTheOnesThatAre() throws {
        let (producer, _) = try server.provideVideo(colour: "336699", name: "podium-test-only")
        defer { _ = try? producer.interrupt(timeout: 5) }
        let output = folder.appendingPathComponent("never.mkv").path
        let result = try Tools.podium(["stream", "--source", "camera:nosuch", "--to", output],
                                      environment: environment)
        #expect(result.status == 69, "\(result)")
        #expect(result.stderr.contains("camera 'nosuch': no such camera; cameras here: podium-test-only"),
                "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let empty = try Tools.podium(["stream", "--source", "camera:", "--to", output], environment: environment)
        #expect(empty.status == 64, "\(empty)")
    }
}

extension PipeWireTests {
    /// Where neither PipeWire (nor a Camera portal) nor V4L2 has a camera: one line, 69, nothing made.
    @Test(.enabled(if: ((try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/video4linux")) ?? []).isEmpty,
                   "this machine has a V4L2 device"))
    func noCameraAnywhereIsSaidInOneLine() throws {
        let environment = ["XDG_RUNTIME_DIR": try Tools.temporaryFolder().path]
        let output = folder.appendingPathComponent("nocamera.mkv").path
        let run = try Tools.podium(["stream", "--source", "camera", "--to", output], environment: environment)
        #expect(run.status == 69, "\(run)")
        #expect(run.stderr == "podium: no camera: neither PipeWire nor V4L2 (/dev/video*) has one\n", "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let listed = try Tools.podium(["sources", "--video"], environment: environment)
        #expect(listed.status == 0 && listed.stdout.contains("none"), "\(listed)")
    }
}

/// The desktop's Camera portal: where PipeWire's own socket is shut (inside a sandbox) or shows no
/// camera, the cameras are asked of the portal and read through the connection it hands out.
extension PipeWireTests {
    @Test func aCameraThroughTheDesktopsCameraPortal() throws {
        let (producer, _) = try server.provideVideo(colour: "336699", name: "podium-test-portal-camera")
        defer { _ = try? producer.interrupt(timeout: 5) }
        let portal = try MockPortal(pipewire: server.folder, camera: "ok")
        // A runtime folder without PipeWire's socket: the portal is the only way.
        let shut = try Tools.temporaryFolder()
        let environment = portal.environment.merging(["XDG_RUNTIME_DIR": shut.path]) { $1 }
        let listed = try Tools.podium(["sources", "--video"], environment: environment)
        #expect(listed.status == 0 && listed.stdout.contains("through the desktop's Camera portal")
                && listed.stdout.contains("--source camera:podium-test-portal-camera"), "\(listed)")
        let recording = folder.appendingPathComponent("portal-camera.mkv").path
        let run = try Tools.podium(["stream", "--source", "camera", "--to", recording, "-t", "2s"],
                                   environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("through the desktop's Camera portal at 30 fps"), "\(run.stderr)")
        let (frames, coloured) = try framesAndColoured(recording, red: 0x33, green: 0x66, blue: 0x99, within: 8)
        #expect(frames >= 10 && frames == coloured, "\(coloured) of \(frames) frames the camera's colour")
        let asked = portal.requests().compactMap { $0["request"] as? String }
        #expect(asked.filter { $0 == "AccessCamera" }.count == 2, "\(asked)")
        #expect(asked.contains("Camera.OpenPipeWireRemote") && !asked.contains("CreateSession"), "\(asked)")
    }

    /// A user who refuses the portal's dialog: 77, one line, nothing written.
    @Test func aRefusedCameraPortalEndsTheRunBeforeAnythingIsMade() throws {
        let portal = try MockPortal(pipewire: server.folder, camera: "cancel")
        let environment = portal.environment.merging(["XDG_RUNTIME_DIR": try Tools.temporaryFolder().path]) { $1 }
        let output = folder.appendingPathComponent("refused.mkv").path
        let run = try Tools.podium(["stream", "--source", "camera", "--to", output], environment: environment)
        #expect(run.status == 77, "\(run)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}

extension PipeWireTests {
    /// Two sources of any kinds: a camera in the corner of a Wayland output (a headless sway).
    @Test func aCameraOverAWaylandOutput() throws {
        let sway = try SwayServer(width: 1280, height: 720)
        try sway.paint("#20c040", output: "HEADLESS-1")
        let (producer, _) = try server.provideVideo(colour: "336699", name: "podium-test-presenter")
        defer { _ = try? producer.interrupt(timeout: 5) }
        let recording = folder.appendingPathComponent("wayland-over.mkv").path
        let run = try Tools.podium(["stream", "--display", sway.display, "--source", "wlr:HEADLESS-1", "--source",
                                    "camera", "--layout", "over", "--to", recording, "-t", "3s"],
                                   environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("capturing HEADLESS-1 of \(sway.display) with screencopy and camera "
                                    + "podium-test-presenter"), "\(run.stderr)")
        let frames = try Tools.rgbFrames(recording, size: (width: 32, height: 18))
        let last = try #require(frames.last)
        func colour(_ x: Int, _ y: Int) -> [Int] { (0..<3).map { Int(last.pixels[(y * 32 + x) * 3 + $0]) } }
        func near(_ got: [Int], _ want: [Int]) -> Bool { zip(got, want).allSatisfy { abs($0 - $1) < 12 } }
        #expect(frames.count >= 20, "\(frames.count) frames")
        #expect(near(colour(28, 3), [0x33, 0x66, 0x99]), "corner \(colour(28, 3))")
        #expect(near(colour(16, 12), [0x20, 0xC0, 0x40]), "middle \(colour(16, 12))")
    }
}
