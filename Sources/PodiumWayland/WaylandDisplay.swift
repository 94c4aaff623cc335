import CWayland
public import PodiumCore
#if canImport(Glibc)
import Glibc
#endif

/// A connection to a Wayland compositor: its outputs (named, sized and placed, as `podium
/// displays` lists them), shared memory, and wlroots' screencopy when it has it.
///
/// Not thread-safe: made on one thread (the capture thread, or the one that lists outputs) and
/// used there alone; events are read only when asked, with `dispatch`.
public final class WaylandDisplay {
    let raw: OpaquePointer
    /// The compositor's socket as it was named (`wayland-1`, or a path).
    public let name: String
    private let registry: OpaquePointer
    private(set) var sharedMemory: OpaquePointer?
    private(set) var screencopy: OpaquePointer?
    private var outputManager: OpaquePointer?
    /// The outputs, in the order the compositor announced them.
    private(set) var outputs: [WaylandOutput] = []
    /// The other globals, by interface, bound only by what uses them (`bind(_:_:version:)`).
    private var globals: [String: (name: UInt32, version: UInt32)] = [:]
    private let listener = UnsafeMutablePointer<wl_registry_listener>.allocate(capacity: 1)

    /// Connects to the compositor at `name` (`$WAYLAND_DISPLAY` when `nil`) and learns its globals
    /// and outputs.
    /// - Throws: 69 when there is no compositor there.
    public init(name: String? = nil) throws(PodiumError) {
        let given = name ?? Environment.waylandDisplay ?? "wayland-0"
        guard given.hasPrefix("/") || Environment.runtimeFolder != nil else {
            throw .unavailable("the Wayland display '\(given)' is a socket in $XDG_RUNTIME_DIR, which is not set; "
                               + "pass its path")
        }
        guard let display = wl_display_connect(given) else {
            throw .unavailable("cannot connect to the Wayland display '\(given)': \(String(cString: strerror(errno)))")
        }
        guard let registry = wl_display_get_registry(display) else {
            wl_display_disconnect(display)
            throw .unavailable("the Wayland display '\(given)' gave no registry")
        }
        raw = display
        self.name = given
        self.registry = registry
        listener.initialize(to: wl_registry_listener(
            global: { data, _, name, interface, version in
                guard let data, let interface else { return }
                Unmanaged<WaylandDisplay>.fromOpaque(data).takeUnretainedValue()
                    .announced(name, interface: String(cString: interface), version: version)
            },
            global_remove: { data, _, name in
                guard let data else { return }
                Unmanaged<WaylandDisplay>.fromOpaque(data).takeUnretainedValue().removed(name)
            }))
        wl_registry_add_listener(registry, listener, Unmanaged.passUnretained(self).toOpaque())
        // The globals, then what each output says of itself.
        try roundtrip()
        try roundtrip()
    }

    deinit {
        outputs.removeAll()
        if let screencopy { zwlr_screencopy_manager_v1_destroy(screencopy) }
        if let outputManager { zxdg_output_manager_v1_destroy(outputManager) }
        if let sharedMemory { wl_shm_destroy(sharedMemory) }
        wl_registry_destroy(registry)
        wl_display_disconnect(raw)
        listener.deallocate()
    }

    private func announced(_ global: UInt32, interface: String, version: UInt32) {
        switch interface {
        case "wl_shm":
            sharedMemory = bind(global, cwl_shm_interface(), version: 1)
        case "zwlr_screencopy_manager_v1":
            // Version 2 added copy_with_damage; 3 says when every buffer kind was offered.
            screencopy = bind(global, cwl_screencopy_manager_interface(), version: min(version, 3))
        case "zxdg_output_manager_v1":
            outputManager = bind(global, cwl_xdg_output_manager_interface(), version: min(version, 3))
            for output in outputs { output.describe(with: outputManager) }
        case "wl_output":
            // Version 4 names the output (`HEADLESS-1`, `DP-1`).
            guard let proxy = bind(global, cwl_output_interface(), version: min(version, 4)) else { return }
            let output = WaylandOutput(proxy: proxy, global: global)
            output.describe(with: outputManager)
            outputs.append(output)
        default:
            globals[interface] = (global, version)
        }
    }

    private func removed(_ global: UInt32) {
        outputs.removeAll { $0.global == global }
        globals = globals.filter { $0.value.name != global }
    }

    /// Binds the global of `interface`, at its version or `version` if that is older.
    /// - Returns: its proxy, or `nil` when the compositor has none.
    func bind(_ interface: String, _ type: UnsafePointer<wl_interface>?, version: UInt32) -> OpaquePointer? {
        guard let global = globals[interface] else { return nil }
        return bind(global.name, type, version: min(global.version, version))
    }

    /// Whether the compositor has a global of `interface` (`zwlr_layer_shell_v1`).
    func has(_ interface: String) -> Bool { globals[interface] != nil }

    private func bind(_ global: UInt32, _ interface: UnsafePointer<wl_interface>?, version: UInt32) -> OpaquePointer? {
        wl_registry_bind(registry, global, interface, version).map(OpaquePointer.init)
    }

    /// Sends what is queued and waits until the compositor has answered all of it.
    /// - Throws: 69 when the connection is lost.
    func roundtrip() throws(PodiumError) {
        guard wl_display_roundtrip(raw) >= 0 else { throw lost() }
    }

    /// Whether the compositor copies its outputs for clients (wlroots' screencopy, with shared memory).
    public var canCopyOutputs: Bool { screencopy != nil && sharedMemory != nil }

    /// Sends what is queued now.
    func flush() {
        _ = wl_display_flush(raw)
    }

    /// Sends what is queued and handles the events that have come, without waiting for more
    /// (or waiting at most `timeout` milliseconds for the first).
    /// - Throws: 69 when the connection is lost.
    func dispatch(timeout: Int32 = 0) throws(PodiumError) {
        while wl_display_prepare_read(raw) != 0 {
            guard wl_display_dispatch_pending(raw) >= 0 else { throw lost() }
        }
        _ = wl_display_flush(raw)
        var descriptor = pollfd(fd: wl_display_get_fd(raw), events: Int16(POLLIN), revents: 0)
        if poll(&descriptor, 1, timeout) > 0 {
            guard wl_display_read_events(raw) >= 0 else { throw lost() }
        } else {
            wl_display_cancel_read(raw)
        }
        guard wl_display_dispatch_pending(raw) >= 0 else { throw lost() }
    }

    private func lost() -> PodiumError {
        let code = wl_display_get_error(raw)
        let reason = String(cString: strerror(code == 0 ? errno : code))
        return .unavailable("lost the Wayland display '\(name)': \(reason)")
    }

    /// The outputs as monitors, for `podium displays` and `--monitor`: named, placed in the
    /// compositor's layout (logical coordinates), at their pixel size.
    public var monitors: [WaylandMonitor] {
        outputs.enumerated().map { index, output in
            WaylandMonitor(index: index, name: output.name, description: output.summary,
                           rect: PixelRect(x: output.position.x, y: output.position.y, size: output.size))
        }
    }

    /// The output named `name`.
    func output(named name: String) -> WaylandOutput? {
        outputs.first { $0.name == name }
    }
}

/// An output as `podium displays` lists it.
public struct WaylandMonitor: Sendable, Equatable, Codable {
    /// Its place in the compositor's list, which `--monitor` takes too.
    public var index: Int
    /// `HEADLESS-1`, `DP-1`.
    public var name: String
    /// The compositor's words for it (`Dell Inc. DELL U2415 (DP-1)`).
    public var description: String
    /// Its place and size: its top-left corner in the compositor's layout, its size in pixels.
    public var rect: PixelRect
}

enum Environment {
    /// `$WAYLAND_DISPLAY`, if set: a socket's name in `$XDG_RUNTIME_DIR`, or its path.
    static var waylandDisplay: String? {
        getenv("WAYLAND_DISPLAY").map { String(cString: $0) }
    }

    /// `$XDG_RUNTIME_DIR`, where compositors' sockets are, if set.
    static var runtimeFolder: String? {
        getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }
}
