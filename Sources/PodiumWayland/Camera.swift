public import PodiumCore
import PodiumSound

/// A camera as PipeWire offers it: a `Video/Source` node (a webcam through PipeWire's V4L2 or
/// libcamera plugin, a virtual camera, another program's video), read as any PipeWire video
/// stream once found.
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

    /// The camera `name` picks among `cameras`: its node name exactly, or a part of its name or
    /// label in any case; the first camera when `name` is `nil`.
    /// - Throws: 69 when none matches (the message lists the cameras there are), 64 when a part
    ///   matches several.
    public static func select(_ name: String?, from cameras: [Camera]) throws(PodiumError) -> Camera {
        let listing = cameras.isEmpty ? "PipeWire has none (no Video/Source node)"
            : "cameras here: " + cameras.map(\.description).joined(separator: ", ")
        guard let name else {
            guard let first = cameras.first else { throw .unavailable("no camera: \(listing)") }
            return first
        }
        if let exact = cameras.first(where: { $0.name == name }) { return exact }
        let matches = cameras.filter { camera in
            ([camera.name] + (camera.label.map { [$0] } ?? [])).contains { $0.lowercased().contains(name.lowercased()) }
        }
        guard let chosen = matches.first else { throw .unavailable("camera '\(name)': no such camera; \(listing)") }
        guard matches.count == 1 else {
            throw .usage("camera '\(name)' matches \(matches.count) cameras: "
                         + matches.map(\.description).joined(separator: ", ") + "; give more of its name")
        }
        return chosen
    }

    /// Finds the camera `camera[:NAME]` asks for, and reads it as a PipeWire video node.
    public struct Resolver: SourceResolver {
        public init() {}

        public func resolve(_ lookup: SourceLookup) throws(PodiumError) -> (any SourcePlan)? {
            guard case .camera(let name) = lookup.request else { return nil }
            let camera = try Camera.select(name, from: Camera.list())
            var plan = try PipeWirePlan.look(node: camera.node, name: "camera \(camera)")
            plan.presenterTools = .unavailable("a camera shows no pointer")
            return plan
        }
    }
}
