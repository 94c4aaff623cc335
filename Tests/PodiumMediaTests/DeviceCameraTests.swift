import Foundation
import Logging
import PodiumCore
import PodiumMedia
import PodiumTestSupport
import Testing

/// A camera read through libavdevice. No V4L2 device can be made here (that takes a kernel
/// module), so the reader is fed by libavdevice's `lavfi` input, which sends raw pictures as a
/// webcam's driver does, and by a file of JPEG pictures, as a webcam's MJPEG: the same opening,
/// decoding, conversion to BGRA and pacing. What sysfs lists is read from a folder laid out as
/// the kernel lays it out.
@Suite struct DeviceCameraTests {
    private let logger = Logger(label: "test")

    /// Takes frames at 30 a second for `seconds`: what each slot gave.
    private func slots(of capture: DeviceCapture, seconds: Double) throws -> [CaptureOutcome] {
        let clock = MonotonicClock()
        var outcomes: [CaptureOutcome] = []
        for slot in 0..<Int(seconds * 30) {
            let outcome = try capture.capture(sequence: UInt64(slot), time: clock.now(), slotTime: clock.now(),
                                              evenIfUnchanged: false)
            if case .frame(let frame) = outcome { frame.buffer.share(with: 0) }
            outcomes.append(outcome)
            Thread.sleep(forTimeInterval: 1.0 / 30)
        }
        return outcomes
    }

    /// The first frame the capture hands on within 5 s, its first pixel as (blue, green, red).
    private func firstPixel(of capture: DeviceCapture) throws -> (size: PixelSize, bgr: [Int]) {
        let clock = MonotonicClock()
        for slot in 0..<150 {
            if case .frame(let frame) = try capture.capture(sequence: UInt64(slot), time: clock.now(),
                                                            slotTime: clock.now(), evenIfUnchanged: false) {
                defer { frame.buffer.share(with: 0) }
                let pixel = frame.buffer.bytes.assumingMemoryBound(to: UInt8.self)
                return (frame.size, [Int(pixel[0]), Int(pixel[1]), Int(pixel[2])])
            }
            Thread.sleep(forTimeInterval: 1.0 / 30)
        }
        throw TestFailure("no frame within 5 s")
    }

    private func near(_ got: [Int], _ want: [Int]) -> Bool { zip(got, want).allSatisfy { abs($0 - $1) <= 6 } }

    @Test func rawPicturesAreTakenInTheirColourAtTheirRate() throws {
        let plan = try DeviceCameraPlan.look(DeviceCameraPlan(device: "color=c=0x336699:s=320x240:r=30",
                                                              inputFormat: "lavfi", name: "camera test"))
        #expect(plan.size == PixelSize(width: 320, height: 240))
        let capture = try DeviceCapture(plan: plan, bufferCount: 2, logger: logger)
        let (size, bgr) = try firstPixel(of: capture)
        #expect(size == PixelSize(width: 320, height: 240))
        #expect(near(bgr, [0x99, 0x66, 0x33]), "\(bgr)")
        let frames = try slots(of: capture, seconds: 1).filter { if case .frame = $0 { true } else { false } }
        #expect(frames.count >= 15, "\(frames.count) frames in a second at 30 fps")
    }

    @Test func aWebcamsJPEGPicturesAreDecoded() throws {
        let folder = try Tools.temporaryFolder()
        let file = folder.appendingPathComponent("webcam.avi").path
        let made = try Tools.start("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=0xC03020:s=640x360:r=30",
                                              "-t", "1", "-c:v", "mjpeg", "-q:v", "2", file]).wait(timeout: 30)
        #expect(made.status == 0, "\(made)")
        let plan = try DeviceCameraPlan.look(DeviceCameraPlan(device: file, inputFormat: "avi", name: "camera jpeg"))
        let capture = try DeviceCapture(plan: plan, bufferCount: 2, logger: logger)
        let (size, bgr) = try firstPixel(of: capture)
        #expect(size == PixelSize(width: 640, height: 360))
        #expect(near(bgr, [0x20, 0x30, 0xC0]), "\(bgr)")
    }

    /// A camera that stops sending (unplugged) is waited for, and taken again when it is back.
    @Test func aCameraThatStopsIsWaitedForAndTakenAgain() throws {
        // Half a second of pictures at each opening: it "goes" and "comes back" each second.
        let plan = try DeviceCameraPlan.look(DeviceCameraPlan(device: "color=c=white:s=160x120:r=30:d=0.5",
                                                              inputFormat: "lavfi", name: "camera flaky"))
        let capture = try DeviceCapture(plan: plan, bufferCount: 2, logger: logger)
        let outcomes = try slots(of: capture, seconds: 3.5)
        let kinds = outcomes.map { outcome -> Character in
            switch outcome {
            case .frame: "f"
            case .waiting: "w"
            default: "."
            }
        }
        let text = String(kinds)
        // Frames, then waiting, then frames again.
        #expect(text.contains("w"), "\(text)")
        let back = text.drop { $0 != "w" }.drop { $0 == "w" }
        #expect(back.contains("f"), "\(text)")
    }

    @Test func aDeviceThatCannotBeOpenedIsRefusedWithTheReason() {
        let plan = DeviceCameraPlan(device: "/dev/video-podium-none", inputFormat: "video4linux2",
                                    name: "camera none")
        #expect {
            _ = try DeviceCapture(plan: plan, bufferCount: 2, logger: logger)
        } throws: { error in
            guard let error = error as? PodiumError else { return false }
            return error.exitCode == .unavailable && error.message.contains("camera none: cannot open it")
        }
    }

    /// sysfs lists each webcam's picture node (index 0), not its metadata node; they are picked
    /// by path, node name or a part of what the driver calls them.
    @Test func camerasAreListedFromSysfsAndPickedByName() throws {
        let sysfs = try Tools.temporaryFolder()
        for (node, index, name) in [("video0", 0, "HD Pro Webcam C920"), ("video1", 1, "HD Pro Webcam C920"),
                                    ("video10", 0, "Integrated Camera"), ("vbi0", 0, "teletext")] {
            let folder = sysfs.appendingPathComponent(node)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try "\(index)\n".write(to: folder.appendingPathComponent("index"), atomically: true, encoding: .utf8)
            try "\(name)\n".write(to: folder.appendingPathComponent("name"), atomically: true, encoding: .utf8)
        }
        let cameras = DeviceCamera.list(sysfs: sysfs.path)
        #expect(cameras.map(\.path) == ["/dev/video0", "/dev/video10"])
        #expect(cameras.map(\.label) == ["HD Pro Webcam C920", "Integrated Camera"])
        #expect(try DeviceCamera.select("c920", from: cameras).path == "/dev/video0")
        #expect(try DeviceCamera.select("video10", from: cameras).path == "/dev/video10")
        #expect(try DeviceCamera.select("/dev/video0", from: cameras).path == "/dev/video0")
        #expect(try DeviceCamera.select(nil, from: cameras).path == "/dev/video0")
        #expect(throws: PodiumError.self) { try DeviceCamera.select("cam", from: cameras) }
        do {
            _ = try DeviceCamera.select("nosuch", from: cameras)
            Issue.record("nosuch was found")
        } catch {
            #expect(error.exitCode == .unavailable)
            #expect(error.message == "camera 'nosuch': no such camera; V4L2 cameras here: "
                    + "HD Pro Webcam C920 (/dev/video0), Integrated Camera (/dev/video10)")
        }
        do {
            _ = try DeviceCamera.select(nil, from: [])
            Issue.record("a camera was found among none")
        } catch {
            #expect(error.message == "no camera: neither PipeWire nor V4L2 (/dev/video*) has one")
        }
    }
}
