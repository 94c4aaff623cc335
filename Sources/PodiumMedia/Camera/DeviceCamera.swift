import Foundation
public import Logging
public import PodiumCore

/// A camera the kernel offers as a V4L2 device (`/dev/video0`), read through libavdevice: the way
/// to a webcam where PipeWire shows none (a desktop that does not run it).
public struct DeviceCamera: Sendable, Equatable, CustomStringConvertible {
    /// `/dev/videoN`.
    public var path: String
    /// What the driver calls it (`HD Pro Webcam C920`).
    public var label: String

    public var description: String { "\(label) (\(path))" }

    /// The capture devices there are, as sysfs lists them: each camera's first node (`index` 0;
    /// a webcam's second node carries metadata, not pictures), in number order.
    /// - Parameters:
    ///   - sysfs: where the kernel lists them.
    ///   - devices: where their nodes are.
    public static func list(sysfs: String = "/sys/class/video4linux", devices: String = "/dev") -> [DeviceCamera] {
        let folder = URL(fileURLWithPath: sysfs)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: sysfs)) ?? []
        let numbered = names.compactMap { name -> (Int, String)? in
            guard name.hasPrefix("video"), let number = Int(name.dropFirst(5)) else { return nil }
            return (number, name)
        }
        return numbered.sorted { $0.0 < $1.0 }.compactMap { _, name in
            func read(_ file: String) -> String? {
                (try? String(contentsOf: folder.appendingPathComponent(name).appendingPathComponent(file),
                             encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            guard (read("index").flatMap(Int.init) ?? 0) == 0 else { return nil }
            return DeviceCamera(path: "\(devices)/\(name)", label: read("name") ?? name)
        }
    }

    /// The camera `name` picks among `cameras`: its path or node (`video0`) exactly, or a part of
    /// what the driver calls it; the first when `name` is `nil`.
    /// - Throws: 69 when none matches (the message lists what there is), 64 when several do.
    public static func select(_ name: String?, from cameras: [DeviceCamera]) throws(PodiumError) -> DeviceCamera {
        let listing = cameras.isEmpty
            ? "neither PipeWire nor V4L2 (/dev/video*) has one"
            : "V4L2 cameras here: " + cameras.map(\.description).joined(separator: ", ")
        return try NamePick.select(name, from: cameras, kind: "camera", listing: listing,
                                   names: { [$0.path, ($0.path as NSString).lastPathComponent, $0.label] })
    }

    /// Finds the V4L2 camera `camera[:NAME]` asks for; asked after PipeWire's cameras, so it
    /// answers only where PipeWire shows none.
    public struct Resolver: SourceResolver {
        public init() {}

        public func resolve(_ lookup: SourceLookup) throws(PodiumError) -> (any SourcePlan)? {
            guard case .camera(let name) = lookup.request else { return nil }
            let camera = try DeviceCamera.select(name, from: DeviceCamera.list())
            return try DeviceCameraPlan.look(DeviceCameraPlan(v4l2: camera))
        }
    }
}

/// What a camera read through libavdevice takes: the device, the input format that reads it, and
/// the options to open it with.
public struct DeviceCameraPlan: SourcePlan {
    /// The device's path, or what the input format takes in its place (a filter graph for `lavfi`).
    public var device: String
    /// libavdevice's name for the input (`video4linux2`).
    public var inputFormat: String
    /// Options tried in turn until the device opens with one.
    public var attempts: [[String: String]]
    public var name: String
    /// Its pictures' size, from its first frame.
    public var size = PixelSize(width: 0, height: 0)

    /// - Parameter attempts: options tried in turn until the device opens with one; none by default.
    public init(device: String, inputFormat: String, attempts: [[String: String]] = [[:]], name: String) {
        self.device = device
        self.inputFormat = inputFormat
        self.attempts = attempts
        self.name = name
    }

    /// A V4L2 webcam: its JPEG pictures first (most webcams send their larger sizes at full rate
    /// only so), else what it sends by default.
    public init(v4l2 camera: DeviceCamera) {
        self.init(device: camera.path, inputFormat: "video4linux2",
                  attempts: [["input_format": "mjpeg"], [:]], name: "camera \(camera)")
    }

    public var display: String { inputFormat == "video4linux2" ? "V4L2" : inputFormat }
    public var drawsCursor: Bool { false }
    public var presenterToolsUnavailable: String? { "a camera shows no pointer" }

    public func openGrabber(bufferCount: Int, logger: Logger)
        throws(PodiumError) -> any FrameGrabber {
        try DeviceCapture(plan: self, bufferCount: bufferCount, logger: logger)
    }

    /// `plan` with the size of its first frame, read once and closed.
    /// - Throws: 69 when it cannot be opened or sends no picture within 5 s.
    public static func look(_ plan: DeviceCameraPlan) throws(PodiumError) -> DeviceCameraPlan {
        let probe = try DeviceCapture(plan: plan, bufferCount: 1,
                                      logger: Logger(label: "podium-probe") { _ in SwiftLogNoOpLogHandler() })
        guard let size = probe.firstSize(within: 5) else {
            throw .unavailable("\(plan.name) sent no picture within 5 s")
        }
        var plan = plan
        plan.size = size
        return plan
    }
}
