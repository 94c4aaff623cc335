public import PodiumCore
import PodiumSound

/// A camera as PipeWire offers it: a `Video/Source` node (a webcam through PipeWire's V4L2 or
/// libcamera plugin, a virtual camera, another program's video), read as any PipeWire video
/// stream once found: from the user's PipeWire, or through the desktop's Camera portal.
public struct Camera: Sendable, Equatable, CustomStringConvertible {
    /// The node's id, which changes when the camera comes back.
    public var node: UInt32
    /// `node.name`: stable across runs, what `camera:NAME` matches first.
    public var name: String
    /// `node.description` (or its nick): what a person calls it.
    public var label: String?

    public var description: String { label.map { "\(name) (\($0))" } ?? name }

    /// The cameras the user's PipeWire has now, in the registry's order. Blocks for a round trip.
    /// - Throws: 69 when PipeWire cannot be reached.
    public static func list() throws(PodiumError) -> [Camera] {
        try PipeWireNode.list("Video/Source").map { Camera(node: $0.id, name: $0.name, label: $0.label) }
    }

    /// The cameras there are, and how they are reached: from the user's PipeWire; where it is
    /// shut or shows none (inside a sandbox), through the desktop's Camera portal when it has one.
    /// None when neither is there.
    /// - Parameter interrupted: asked while the desktop's dialog waits; `true` gives up.
    /// - Throws: 77 when the user refuses the portal's dialog; 69 when the portal fails.
    static func reachable(interrupted: @escaping @Sendable () -> Bool) throws(PodiumError)
        -> (cameras: [Camera], portal: CameraPortal?) {
        let direct: Result<[Camera], PodiumError>
        do { direct = .success(try list()) } catch { direct = .failure(error) }
        if case .success(let cameras) = direct, !cameras.isEmpty { return (cameras, nil) }
        let portal: CameraPortal
        do {
            portal = try CameraPortal(interrupted: interrupted)
        } catch where error.exitCode == .unavailable {
            return ((try? direct.get()) ?? [], nil)
        }
        return (try portal.cameras(), portal)
    }

    /// The cameras there are, as `reachable` finds them, for listing; `throughPortal` when the
    /// desktop's Camera portal showed them.
    public static func listReachable() throws(PodiumError) -> (cameras: [Camera], throughPortal: Bool) {
        let found = try reachable(interrupted: { false })
        return (found.cameras, found.portal != nil)
    }

    /// The camera `name` picks among `cameras`: its node name exactly, or a part of its name or
    /// label in any case; the first camera when `name` is `nil`.
    /// - Throws: 69 when none matches (the message lists the cameras there are), 64 when a part
    ///   matches several.
    public static func select(_ name: String?, from cameras: [Camera]) throws(PodiumError) -> Camera {
        let listing = cameras.isEmpty ? "PipeWire has none (no Video/Source node)"
            : "cameras here: " + cameras.map(\.description).joined(separator: ", ")
        return try NamePick.select(name, from: cameras, kind: "camera", listing: listing,
                                   names: { [$0.name] + ($0.label.map { [$0] } ?? []) })
    }

    /// Finds the camera `camera[:NAME]` asks for, and reads it as a PipeWire video node; where
    /// PipeWire (and the portal) show none, leaves the request to the next resolver (a V4L2 device).
    public struct Resolver: SourceResolver {
        public init() {}

        public func resolve(_ lookup: SourceLookup) throws(PodiumError) -> (any SourcePlan)? {
            guard case .camera(let name) = lookup.request else { return nil }
            let (cameras, portal) = try Camera.reachable(interrupted: lookup.stopRequested)
            guard !cameras.isEmpty else { return nil }
            let camera = try Camera.select(name, from: cameras)
            let title = "camera \(camera)" + (portal == nil ? "" : " through the desktop's Camera portal")
            var plan = try PipeWirePlan.look(node: camera.node, name: title, remote: portal)
            plan.presenterToolsUnavailable = "a camera shows no pointer"
            plan.hasOwnRate = true
            return plan
        }
    }
}
