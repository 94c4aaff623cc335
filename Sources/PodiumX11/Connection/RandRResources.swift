import CXCB
import PodiumCore

/// The RandR outputs, CRTCs and modes of a screen, as much of them as an extra monitor needs.
struct RandRResources {
    struct Output {
        var id: xcb_randr_output_t
        var name: String
        var isConnected: Bool
        /// How many modes it has: a monitor plugged in tells of some.
        var modeCount: Int
        /// The CRTC driving it; 0 for none.
        var crtc: xcb_randr_crtc_t
        var possibleCrtcs: [xcb_randr_crtc_t]
    }

    struct Crtc {
        var id: xcb_randr_crtc_t
        /// Its mode; 0 when it is off.
        var mode: xcb_randr_mode_t
        var outputs: [xcb_randr_output_t]
    }

    var configTimestamp: xcb_timestamp_t
    var outputs: [Output]
    var crtcs: [Crtc]
    var modes: [(id: xcb_randr_mode_t, name: String)]

    /// An output nothing drives (no cable in it, or one without a mode: the dummy driver calls an
    /// output it drove once connected) and an idle CRTC that can drive it: a monitor the X server
    /// treats as any, the pointer included (it keeps the pointer within CRTCs).
    var spare: (output: Output, crtc: xcb_randr_crtc_t)? {
        let idle = Set(crtcs.filter { $0.mode == 0 && $0.outputs.isEmpty }.map(\.id))
        for output in outputs where (!output.isConnected || output.modeCount == 0) && output.crtc == 0 {
            if let crtc = output.possibleCrtcs.first(where: idle.contains) { return (output, crtc) }
        }
        return nil
    }
}

extension XConnection {
    /// The screen's RandR resources.
    ///
    /// The corresponding C functions are `xcb_randr_get_screen_resources_current`,
    /// `xcb_randr_get_output_info` and `xcb_randr_get_crtc_info`.
    func randrResources() throws(PodiumError) -> RandRResources {
        do {
            let cookie = xcb_randr_get_screen_resources_current(raw, root)
            var resources = try withReply({ xcb_randr_get_screen_resources_current_reply($0, cookie, $1) }) { reply in
                let outputs = Array(UnsafeBufferPointer(
                    start: xcb_randr_get_screen_resources_current_outputs(reply),
                    count: Int(xcb_randr_get_screen_resources_current_outputs_length(reply))))
                let crtcs = Array(UnsafeBufferPointer(
                    start: xcb_randr_get_screen_resources_current_crtcs(reply),
                    count: Int(xcb_randr_get_screen_resources_current_crtcs_length(reply))))
                let infos = UnsafeBufferPointer(start: xcb_randr_get_screen_resources_current_modes(reply),
                                                count: Int(xcb_randr_get_screen_resources_current_modes_length(reply)))
                var names = xcb_randr_get_screen_resources_current_names(reply)
                var modes: [(id: xcb_randr_mode_t, name: String)] = []
                for info in infos {
                    let bytes = UnsafeRawBufferPointer(start: names, count: Int(info.name_len))
                    modes.append((info.id, String(decoding: bytes, as: UTF8.self)))
                    names = names.map { $0 + Int(info.name_len) }
                }
                return (RandRResources(configTimestamp: reply.pointee.config_timestamp, outputs: [], crtcs: [],
                                       modes: modes), outputs, crtcs)
            }
            let stamp = resources.0.configTimestamp
            resources.0.outputs = try resources.1.map { id throws(X11RequestError) in
                try withReply({ xcb_randr_get_output_info_reply($0, xcb_randr_get_output_info($0, id, stamp), $1) }) {
                    let name = UnsafeRawBufferPointer(start: xcb_randr_get_output_info_name($0),
                                                      count: Int(xcb_randr_get_output_info_name_length($0)))
                    let possible = UnsafeBufferPointer(start: xcb_randr_get_output_info_crtcs($0),
                                                       count: Int(xcb_randr_get_output_info_crtcs_length($0)))
                    return RandRResources.Output(id: id, name: String(decoding: name, as: UTF8.self),
                                                 isConnected: $0.pointee.connection
                                                    == UInt8(XCB_RANDR_CONNECTION_CONNECTED.rawValue),
                                                 modeCount: Int($0.pointee.num_modes), crtc: $0.pointee.crtc,
                                                 possibleCrtcs: Array(possible))
                }
            }
            resources.0.crtcs = try resources.2.map { id throws(X11RequestError) in
                try withReply({ xcb_randr_get_crtc_info_reply($0, xcb_randr_get_crtc_info($0, id, stamp), $1) }) {
                    RandRResources.Crtc(id: id, mode: $0.pointee.mode, outputs: Array(UnsafeBufferPointer(
                        start: xcb_randr_get_crtc_info_outputs($0),
                        count: Int(xcb_randr_get_crtc_info_outputs_length($0)))))
                }
            }
            return resources.0
        } catch {
            throw .unavailable("the X server \(displayName) did not list its RandR outputs: \(error)")
        }
    }

    /// A mode of `size` at `fps` named `name`, with blanking as CVT's reduced blanking has it.
    func createMode(_ name: String, size: PixelSize, fps: Int) throws(PodiumError) -> xcb_randr_mode_t {
        let (htotal, vtotal) = (size.width + 160, size.height + max(6, size.height / 40))
        let info = xcb_randr_mode_info_t(
            id: 0, width: UInt16(size.width), height: UInt16(size.height),
            dot_clock: UInt32(htotal * vtotal * fps), hsync_start: UInt16(size.width + 48),
            hsync_end: UInt16(size.width + 80), htotal: UInt16(htotal), hskew: 0,
            vsync_start: UInt16(size.height + 3), vsync_end: UInt16(size.height + 9), vtotal: UInt16(vtotal),
            name_len: UInt16(name.utf8.count), mode_flags: 0)
        do {
            return try withReply({ xcb_randr_create_mode_reply($0, xcb_randr_create_mode($0, root, info,
                                                                                           UInt32(name.utf8.count),
                                                                                           name), $1) }) {
                $0.pointee.mode
            }
        } catch {
            throw .unavailable("the X server \(displayName) refused a mode of \(size): \(error)")
        }
    }

    /// Sets `crtc` to show `mode` on `outputs` at `place` (mode 0 and no outputs: off).
    func setCrtc(_ crtc: xcb_randr_crtc_t, mode: xcb_randr_mode_t, outputs: [xcb_randr_output_t],
                 at place: (x: Int, y: Int), configTimestamp: xcb_timestamp_t) throws(PodiumError) {
        let status = try? withReply({ xcb_randr_set_crtc_config_reply($0, xcb_randr_set_crtc_config(
            $0, crtc, xcb_timestamp_t(XCB_CURRENT_TIME), configTimestamp, Int16(place.x), Int16(place.y), mode,
            UInt16(XCB_RANDR_ROTATION_ROTATE_0.rawValue), UInt32(outputs.count), outputs), $1) }) {
            $0.pointee.status
        }
        guard status == UInt8(XCB_RANDR_SET_CONFIG_SUCCESS.rawValue) else {
            throw .unavailable("the X server \(displayName) would not \(mode == 0 ? "turn off" : "set") a CRTC "
                               + "(status \(status.map(String.init) ?? "none"))")
        }
    }
}
