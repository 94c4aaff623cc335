import CXCB
public import Foundation

/// An application's window for tests, drawn by the X server itself: a top-level window whose
/// background is one colour, so it shows the same pixels whenever it is exposed, redirected or
/// resized, with no drawing loop. It names itself as programs do (`WM_NAME`, `_NET_WM_NAME`,
/// `WM_CLASS`) and asks for its place (`WM_NORMAL_HINTS`, user-specified, which window managers
/// honour). Through a connection of its own; destroyed when released.
public final class TestWindow {
    private let connection: OpaquePointer
    private let root: xcb_window_t
    /// The X window id.
    public let id: UInt32
    private let display: String

    /// - Parameters:
    ///   - rgb: the window's colour, `0xRRGGBB`.
    ///   - title: its title; `instance` and `className` its `WM_CLASS`.
    ///   - windowType: its `_NET_WM_WINDOW_TYPE`, such as `_NET_WM_WINDOW_TYPE_NOTIFICATION`.
    ///   - overrideRedirect: placed by itself, unmanaged, as notification pop-ups and menus are.
    public init(display: String, title: String, instance: String = "podium-test", className: String = "PodiumTest",
                x: Int = 20, y: Int = 20, width: Int = 200, height: Int = 150, rgb: UInt32, windowType: String? = nil,
                overrideRedirect: Bool = false) throws {
        var screenNumber: Int32 = 0
        connection = xcb_connect(display, &screenNumber)
        guard xcb_connection_has_error(connection) == 0 else {
            xcb_disconnect(connection)
            throw TestFailure("cannot connect to \(display)")
        }
        let screen = xcb_setup_roots_iterator(xcb_get_setup(connection)).data.pointee
        root = screen.root
        self.display = display
        id = xcb_generate_id(connection)
        let mask = XCB_CW_BACK_PIXEL.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue
        xcb_create_window(connection, UInt8(XCB_COPY_FROM_PARENT), id, root, Int16(x), Int16(y), UInt16(width),
                          UInt16(height), 0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), screen.root_visual,
                          mask, [rgb, overrideRedirect ? 1 : 0])
        // ICCCM's STRING is Latin-1.
        set("WM_NAME", type: "STRING", format: 8, title.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })
        set("_NET_WM_NAME", type: "UTF8_STRING", format: 8, Array(title.utf8))
        set("WM_CLASS", type: "STRING", format: 8, Array(instance.utf8) + [0] + Array(className.utf8) + [0])
        if let windowType {
            set("_NET_WM_WINDOW_TYPE", type: "ATOM", format: 32, withUnsafeBytes(of: atom(windowType).littleEndian) {
                Array($0)
            })
        }
        // USPosition | USSize, then x, y, width, height: where the user wants it.
        let hints: [UInt32] = [3, UInt32(x), UInt32(y), UInt32(width), UInt32(height)] + Array(repeating: 0, count: 13)
        set("WM_NORMAL_HINTS", type: "WM_SIZE_HINTS", format: 32, hints.flatMap { value in
            withUnsafeBytes(of: value.littleEndian) { Array($0) }
        })
        xcb_map_window(connection, id)
        sync()
    }

    deinit { xcb_disconnect(connection) }

    /// The id as X tools print it: `0x400001`.
    public var hexID: String { "0x" + String(id, radix: 16) }

    /// Waits until the window is shown (a window manager maps it after framing it). Openbox drops
    /// a map request that comes while it is still starting, after it named its check window:
    /// the request is made again each second, as a program whose window did not show up might.
    public func waitUntilShown(timeout: TimeInterval = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var asked = Date()
        while Date() < deadline {
            let reply = xcb_get_window_attributes_reply(connection, xcb_get_window_attributes(connection, id), nil)
            let state = reply?.pointee.map_state
            free(reply)
            if state == UInt8(XCB_MAP_STATE_VIEWABLE.rawValue) { return }
            if Date().timeIntervalSince(asked) > 1 {
                xcb_map_window(connection, id)
                sync()
                asked = Date()
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let clients = (try? Tools.run("xprop", ["-display", display, "-root", "_NET_CLIENT_LIST"]).stdout) ?? ""
        throw TestFailure("window \(hexID) was never shown; \(clients)")
    }

    /// Paints the whole window in another colour (its background, redrawn by the server).
    public func paint(rgb: UInt32) {
        xcb_change_window_attributes(connection, id, XCB_CW_BACK_PIXEL.rawValue, [rgb])
        xcb_clear_area(connection, 0, id, 0, 0, 0, 0)
        sync()
    }

    /// What the window hears from now on: clicks and key presses (`waitForInput`), and with
    /// `releases` the keys let go.
    public func listenForInput(releases: Bool = false) {
        let mask = XCB_EVENT_MASK_BUTTON_PRESS.rawValue | XCB_EVENT_MASK_KEY_PRESS.rawValue
            | (releases ? XCB_EVENT_MASK_KEY_RELEASE.rawValue : 0)
        xcb_change_window_attributes(connection, id, XCB_CW_EVENT_MASK.rawValue, [mask])
        sync()
    }

    /// The clicks (`click BUTTON at X,Y`, in the window), key presses (`key KEYCODE state STATE`)
    /// and releases (`release KEYCODE`) the window heard, once `count` came or `timeout` passed.
    public func waitForInput(_ count: Int, timeout: TimeInterval = 10) -> [String] {
        var heard: [String] = []
        let deadline = Date().addingTimeInterval(timeout)
        while heard.count < count && Date() < deadline {
            guard let event = xcb_poll_for_event(connection) else {
                Thread.sleep(forTimeInterval: 0.02)
                continue
            }
            defer { free(event) }
            let raw = UnsafeRawPointer(event)
            switch Int32(event.pointee.response_type & 0x7F) {
            case XCB_BUTTON_PRESS:
                let press = raw.load(as: xcb_button_press_event_t.self)
                heard.append("click \(press.detail) at \(press.event_x),\(press.event_y)")
            case XCB_KEY_PRESS:
                let press = raw.load(as: xcb_key_press_event_t.self)
                heard.append("key \(press.detail) state \(press.state)")
            case XCB_KEY_RELEASE:
                heard.append("release \(raw.load(as: xcb_key_release_event_t.self).detail)")
            default:
                break
            }
        }
        return heard
    }

    /// Hides the window, as minimizing does.
    public func unmap() {
        xcb_unmap_window(connection, id)
        sync()
    }

    /// Closes the window.
    public func destroy() {
        xcb_destroy_window(connection, id)
        sync()
    }

    private func set(_ name: String, type: String, format: UInt8, _ bytes: [UInt8]) {
        let count = UInt32(bytes.count) / UInt32(format / 8)
        xcb_change_property(connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), id, atom(name), atom(type), format,
                            count, bytes)
    }

    private func atom(_ name: String) -> xcb_atom_t {
        let cookie = xcb_intern_atom(connection, 0, UInt16(name.utf8.count), name)
        let reply = xcb_intern_atom_reply(connection, cookie, nil)
        defer { free(reply) }
        return reply?.pointee.atom ?? 0
    }

    /// Waits until the server has done everything asked so far.
    private func sync() {
        free(xcb_get_input_focus_reply(connection, xcb_get_input_focus(connection), nil))
    }
}

/// A window manager on a test's display: openbox, which frames (reparents) windows and keeps
/// `_NET_CLIENT_LIST`, as desktops do. Stopped when released.
public final class WindowManager {
    private let process: RunningCommand

    /// Starts openbox on `display` and waits until it manages the screen.
    public init(display: String) throws {
        process = try Tools.start("openbox", [], environment: ["DISPLAY": display])
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let check = try Tools.run("xprop", ["-display", display, "-root", "_NET_SUPPORTING_WM_CHECK"])
            if check.stdout.contains("window id") { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw TestFailure("openbox never managed \(display)")
    }

    deinit { _ = try? process.interrupt() }
}

extension Tools {
    /// Runs `xdotool` on `display` (to move, resize or click), failing on an error.
    public static func xdotool(_ display: String, _ arguments: String...) throws {
        let result = try start("/usr/bin/xdotool", arguments, environment: ["DISPLAY": display]).wait(timeout: 10)
        guard result.status == 0 else {
            throw TestFailure("xdotool \(arguments.joined(separator: " ")): \(result.stderr)")
        }
    }
}
