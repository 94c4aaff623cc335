import CPipeWire
public import PodiumCore

/// One node of a PipeWire graph, as its registry describes it.
public struct PipeWireNode: Sendable, Equatable {
    public var id: UInt32
    /// `node.name`: what targets it (`alsa_input.usb-…`, `v4l2_input.pci-…`).
    public var name: String
    /// `node.description` or `node.nick`, for people; `nil` when it has neither.
    public var label: String?
    /// The application a stream belongs to (`application.name`).
    public var application: String?

    /// The nodes of `mediaClass` (`Video/Source`, `Audio/Sink`, `Stream/Output/Audio`…) there now.
    /// - Parameter remote: a PipeWire socket's path; the user's PipeWire when `nil`.
    /// - Parameter descriptor: a connection to PipeWire to list through instead (a portal's), which
    ///   the listing takes; -1 for none.
    /// - Throws: 69 when PipeWire cannot be reached.
    public static func list(_ mediaClass: String, remote: String? = nil, descriptor: Int32 = -1)
        throws(PodiumError) -> [PipeWireNode] {
        final class Found {
            var nodes: [PipeWireNode] = []
        }
        let found = Found()
        var error = [CChar](repeating: 0, count: 256)
        let status = withExtendedLifetime(found) {
            cpw_list_nodes(remote, descriptor, mediaClass, { context, id, name, description, nick, application in
                guard let context else { return }
                let string = { (text: UnsafePointer<CChar>?) in text.map { String(cString: $0) } }
                Unmanaged<Found>.fromOpaque(context).takeUnretainedValue().nodes.append(PipeWireNode(
                    id: id, name: string(name) ?? "node \(id)", label: string(description) ?? string(nick),
                    application: string(application)))
            }, Unmanaged.passUnretained(found).toOpaque(), &error, error.count)
        }
        guard status == 0 else {
            throw .unavailable("PipeWire: \(String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))")
        }
        return found.nodes
    }
}
