import CXCB
public import PodiumCore

/// What a display offers for capture: the screen and its RandR monitors.
public struct DisplayLayout: Sendable, Codable, Equatable {
    public var display: String
    public var screen: Int
    public var size: PixelSize
    public var depth: Int
    /// RandR 1.5 monitors in server order; empty when RandR is missing or too old.
    public var monitors: [Monitor]
}

extension XConnection {
    /// Reads the screen and its monitors.
    ///
    /// The corresponding C function is `xcb_randr_get_monitors` (RandR 1.5).
    public func layout() -> DisplayLayout {
        DisplayLayout(display: displayName, screen: screenNumber, size: screenSize, depth: rootDepth,
                      monitors: monitors())
    }

    private func monitors() -> [Monitor] {
        guard hasExtension(cxcb_randr_id()) else { return [] }
        let supportsMonitors = (try? withReply({
            xcb_randr_query_version_reply($0, xcb_randr_query_version($0, 1, 5), $1)
        }) { reply in
            reply.pointee.major_version > 1 || reply.pointee.minor_version >= 5
        }) ?? false
        guard supportsMonitors else { return [] }
        let found = try? withReply({
            xcb_randr_get_monitors_reply($0, xcb_randr_get_monitors($0, root, 1), $1)
        }) { reply in
            var result: [(atom: xcb_atom_t, rect: PixelRect, primary: Bool)] = []
            var iterator = xcb_randr_get_monitors_monitors_iterator(reply)
            while iterator.rem > 0 {
                let info = iterator.data.pointee
                let rect = PixelRect(x: Int(info.x), y: Int(info.y), width: Int(info.width), height: Int(info.height))
                result.append((info.name, rect, info.primary != 0))
                xcb_randr_monitor_info_next(&iterator)
            }
            return result
        }
        // Ask for every name before waiting for the first, so the lookups cost one round trip.
        let cookies = (found ?? []).map { xcb_get_atom_name(raw, $0.atom) }
        return zip(found ?? [], cookies).enumerated().map { index, pair in
            let name = (try? withReply({ xcb_get_atom_name_reply($0, pair.1, $1) }) { reply in
                let length = Int(xcb_get_atom_name_name_length(reply))
                let bytes = UnsafeRawBufferPointer(start: xcb_get_atom_name_name(reply), count: length)
                return String(decoding: bytes, as: UTF8.self)
            }) ?? "monitor-\(index)"
            return Monitor(index: index, name: name, rect: pair.0.rect, isPrimary: pair.0.primary)
        }
    }
}
