import CWayland
import PodiumCore

/// One output of the compositor, as it describes itself: its name, its mode, and (through
/// xdg-output) its place in the layout.
///
/// Used on its display's thread alone.
final class WaylandOutput {
    let proxy: OpaquePointer
    /// The registry's name for it: it is gone when the registry removes that.
    let global: UInt32
    private(set) var name = ""
    private(set) var summary = ""
    private(set) var size = PixelSize(width: 0, height: 0)
    private(set) var position = (x: 0, y: 0)
    private var described: OpaquePointer?
    private let listener = UnsafeMutablePointer<wl_output_listener>.allocate(capacity: 1)
    private let layoutListener = UnsafeMutablePointer<zxdg_output_v1_listener>.allocate(capacity: 1)

    init(proxy: OpaquePointer, global: UInt32) {
        self.proxy = proxy
        self.global = global
        name = "output-\(global)"
        listener.initialize(to: wl_output_listener(
            geometry: { _, _, _, _, _, _, _, _, _, _ in },
            mode: { data, _, flags, width, height, _ in
                guard let data, flags & WL_OUTPUT_MODE_CURRENT.rawValue != 0 else { return }
                WaylandOutput.from(data).size = PixelSize(width: Int(width), height: Int(height))
            },
            done: { _, _ in },
            scale: { _, _, _ in },
            name: { data, _, name in
                guard let data, let name else { return }
                WaylandOutput.from(data).name = String(cString: name)
            },
            description: { data, _, text in
                guard let data, let text else { return }
                WaylandOutput.from(data).summary = String(cString: text)
            }))
        wl_output_add_listener(proxy, listener, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        if let described { zxdg_output_v1_destroy(described) }
        if wl_output_get_version(proxy) >= 3 { wl_output_release(proxy) } else { wl_output_destroy(proxy) }
        listener.deallocate()
        layoutListener.deallocate()
    }

    private static func from(_ data: UnsafeMutableRawPointer) -> WaylandOutput {
        Unmanaged<WaylandOutput>.fromOpaque(data).takeUnretainedValue()
    }

    /// Asks xdg-output where the output is in the layout (wl_output's own position is 0,0 on
    /// wlroots), and its name where wl_output is older than version 4.
    func describe(with manager: OpaquePointer?) {
        guard let manager, described == nil else { return }
        described = zxdg_output_manager_v1_get_xdg_output(manager, proxy)
        layoutListener.initialize(to: zxdg_output_v1_listener(
            logical_position: { data, _, x, y in
                guard let data else { return }
                WaylandOutput.from(data).position = (Int(x), Int(y))
            },
            logical_size: { _, _, _, _ in },
            done: { _, _ in },
            name: { data, _, name in
                guard let data, let name else { return }
                let output = WaylandOutput.from(data)
                if wl_output_get_version(output.proxy) < 4 { output.name = String(cString: name) }
            },
            description: { _, _, _ in }))
        zxdg_output_v1_add_listener(described, layoutListener, Unmanaged.passUnretained(self).toOpaque())
    }
}
