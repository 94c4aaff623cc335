import CPortal
import PodiumCore
import PodiumSound

/// The cameras as the desktop's Camera portal (`org.freedesktop.portal.Camera`) shows them: a
/// sandboxed program's way to them, where PipeWire's own socket is shut or shows none. Each
/// connection is asked of the portal anew (one PipeWire connection serves one client).
final class CameraPortal: PipeWireRemote {
    /// Asks the desktop for the cameras (its dialog the first time), and waits for the answer.
    /// - Parameter interrupted: asked a few times a second while the user chooses; `true` gives up.
    /// - Throws: 77 when the user refuses; 69 when there is no portal, it has no camera, or it fails.
    init(interrupted: @escaping @Sendable () -> Bool) throws(PodiumError) {
        let check = Unmanaged.passRetained(InterruptCheck(interrupted))
        defer { check.release() }
        var error = [CChar](repeating: 0, count: 512)
        let code = cportal_camera_access({ context in
            guard let context else { return 0 }
            return Unmanaged<InterruptCheck>.fromOpaque(context).takeUnretainedValue().asked() ? 1 : 0
        }, check.toOpaque(), &error, error.count)
        let said = Self.text(error)
        switch code {
        case Int32(CPORTAL_OK): return
        case Int32(CPORTAL_CANCELLED): throw .refused(said)
        case Int32(CPORTAL_INTERRUPTED): throw .unavailable("interrupted")
        default: throw .unavailable(said)
        }
    }

    /// The cameras the portal's PipeWire shows.
    /// - Throws: 69 when the portal gives no connection or PipeWire does not answer.
    func cameras() throws(PodiumError) -> [Camera] {
        try PipeWireNode.list("Video/Source", descriptor: connect())
            .map { Camera(node: $0.id, name: $0.name, label: $0.label) }
    }

    func connect() throws(PodiumError) -> Int32 {
        var error = [CChar](repeating: 0, count: 512)
        let descriptor = cportal_camera_connect(&error, error.count)
        guard descriptor >= 0 else { throw .unavailable(Self.text(error)) }
        return descriptor
    }

    /// The portal ends no camera's stream by itself; a camera unplugged ends as one read directly.
    var ended: String? { nil }

    private static func text(_ error: [CChar]) -> String {
        String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
    }
}
