public import CXCB
public import PodiumCore

/// One connection to an X server and the screen Podium works on. Owns the `xcb_connection_t`.
///
/// Not thread-safe: xcb itself is, but Podium's request/reply pairs are not atomic; each
/// connection is made on the thread that uses it and stays there (the capture thread owns its own,
/// the window thread its own).
public final class XConnection {
    /// The raw connection, for the module's own wrappers.
    let raw: OpaquePointer
    /// The display name it was opened with (`:0`), for messages.
    public let displayName: String
    /// The screen in use, inside the connection's setup data (its depths and visuals follow it
    /// there, so it must not be copied out). Valid while the connection is.
    let screenPointer: UnsafeMutablePointer<xcb_screen_t>
    var screen: xcb_screen_t { screenPointer.pointee }
    public let screenNumber: Int

    /// Opens the display.
    ///
    /// The corresponding C function is `xcb_connect`.
    /// - Parameter display: a display name such as `:0`; `nil` uses `$DISPLAY`.
    /// - Throws: `PodiumError` with exit code 69 when there is no display to open.
    public init(display: String?) throws(PodiumError) {
        let name = display ?? Environment.display
        guard let name, !name.isEmpty else {
            throw .unavailable("no X display", remedy: .display)
        }
        var screenNumber: Int32 = 0
        // xcb_connect never returns NULL; failures show as an error state on the connection.
        let connection = xcb_connect(name, &screenNumber)!
        if xcb_connection_has_error(connection) != 0 {
            xcb_disconnect(connection)
            throw .unavailable("cannot open X display '\(name)': is the X server running and may we connect?")
        }
        var roots = xcb_setup_roots_iterator(xcb_get_setup(connection))
        for _ in 0..<screenNumber where roots.rem > 0 { xcb_screen_next(&roots) }
        guard roots.rem > 0, let screen = roots.data else {
            xcb_disconnect(connection)
            throw .unavailable("X display '\(name)' has no screen \(screenNumber)")
        }
        self.raw = connection
        self.displayName = name
        self.screenPointer = screen
        self.screenNumber = Int(screenNumber)
    }

    deinit { xcb_disconnect(raw) }

    /// The root window of the screen in use.
    public var root: xcb_window_t { screen.root }
    /// The whole screen's size.
    public var screenSize: PixelSize {
        PixelSize(width: Int(screen.width_in_pixels), height: Int(screen.height_in_pixels))
    }
    /// The root window's depth in bits.
    public var rootDepth: Int { Int(screen.root_depth) }

    /// Whether the server offers an extension. Asking a server for an extension it lacks can close
    /// the connection, so every extension request is preceded by this check.
    ///
    /// The corresponding C function is `xcb_get_extension_data`.
    func hasExtension(_ id: OpaquePointer) -> Bool {
        guard let data = xcb_get_extension_data(raw, id) else { return false }
        return data.pointee.present != 0
    }

    /// Whether the server is XWayland: the X server of a Wayland desktop, whose screen shows only
    /// the X windows, not the desktop (it alone offers the XWAYLAND extension).
    ///
    /// The corresponding C function is `xcb_query_extension`.
    public var isXWayland: Bool {
        let name = "XWAYLAND"
        let cookie = xcb_query_extension(raw, UInt16(name.utf8.count), name)
        guard let reply = xcb_query_extension_reply(raw, cookie, nil) else { return false }
        defer { free(reply) }
        return reply.pointee.present != 0
    }

    /// The first event number of an extension, to recognise its events.
    func firstEvent(of id: OpaquePointer) -> UInt8 {
        xcb_get_extension_data(raw, id)?.pointee.first_event ?? 0
    }

    /// Whether the connection broke (the server went away, or a fatal protocol error).
    public var isBroken: Bool { xcb_connection_has_error(raw) != 0 }

    /// Sends buffered requests.
    public func flush() { xcb_flush(raw) }

    /// A fresh resource id.
    func generateID() -> UInt32 { xcb_generate_id(raw) }

    /// Waits for the reply to one request and hands it to `body`; frees reply and error.
    ///
    /// - Parameter request: calls the `xcb_…_reply` function with the connection and an error pointer.
    /// - Throws: `X11RequestError` with the X error code, or with code 0 when the connection broke.
    func withReply<Reply, Result>(
        _ request: (OpaquePointer,
                    UnsafeMutablePointer<UnsafeMutablePointer<xcb_generic_error_t>?>) -> UnsafeMutablePointer<Reply>?,
        _ body: (UnsafeMutablePointer<Reply>) throws(X11RequestError) -> Result
    ) throws(X11RequestError) -> Result {
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let reply = request(raw, &error)
        defer { free(reply) }
        if let error {
            let code = error.pointee.error_code
            free(error)
            throw X11RequestError(code: code)
        }
        guard let reply else { throw X11RequestError(code: 0) }
        return try body(reply)
    }

    /// Sends a checked request and waits for its outcome.
    func check(_ cookie: xcb_void_cookie_t) throws(X11RequestError) {
        if let error = xcb_request_check(raw, cookie) {
            let code = error.pointee.error_code
            free(error)
            throw X11RequestError(code: code)
        }
    }
}

/// An X request that failed: the X error code, or 0 when the connection itself broke.
public struct X11RequestError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: UInt8
    public var description: String {
        code == 0 ? "the X connection closed" : "X error \(code)"
    }
}

extension XConnection {
    /// The first keysym of each keycode (the unshifted one), to name the keys pressed and to find
    /// the keycodes of a key; empty when the server does not answer.
    func keyboardMapping() -> [UInt8: UInt32] {
        keyboardLevels().compactMapValues(\.first)
    }

    /// Every keysym of each keycode, by level (unshifted, shifted, …); empty when the server does
    /// not answer.
    ///
    /// The corresponding C function is `xcb_get_keyboard_mapping`.
    func keyboardLevels() -> [UInt8: [UInt32]] {
        guard let setup = xcb_get_setup(raw)?.pointee else { return [:] }
        let first = setup.min_keycode
        let count = UInt8(Int(setup.max_keycode) - Int(first) + 1)
        let request = { (raw: OpaquePointer, error: UnsafeMutablePointer<UnsafeMutablePointer<xcb_generic_error_t>?>) in
            xcb_get_keyboard_mapping_reply(raw, xcb_get_keyboard_mapping(raw, first, count), error)
        }
        return (try? withReply(request) { reply in
            let perCode = Int(reply.pointee.keysyms_per_keycode)
            let symbols = UnsafeBufferPointer(start: xcb_get_keyboard_mapping_keysyms(reply),
                                              count: Int(xcb_get_keyboard_mapping_keysyms_length(reply)))
            var map: [UInt8: [UInt32]] = [:]
            for index in 0..<Int(count) where (index + 1) * perCode <= symbols.count {
                map[UInt8(Int(first) + index)] = Array(symbols[index * perCode..<(index + 1) * perCode])
            }
            return map
        }) ?? [:]
    }

    /// The atoms for `names`, asked for together so they cost one round trip; 0 where the server refused.
    ///
    /// The corresponding C function is `xcb_intern_atom`.
    func atoms(_ names: [String]) -> [xcb_atom_t] {
        let cookies = names.map { name in xcb_intern_atom(raw, 0, UInt16(name.utf8.count), name) }
        return cookies.map { cookie in
            (try? withReply({ xcb_intern_atom_reply($0, cookie, $1) }) { $0.pointee.atom }) ?? 0
        }
    }

    /// Whether an EWMH window manager runs on the screen (it names its check window on the root).
    func hasWindowManager(checkAtom: xcb_atom_t) -> Bool {
        guard checkAtom != 0 else { return false }
        let cookie = xcb_get_property(raw, 0, root, checkAtom, XCB_ATOM_WINDOW.rawValue, 0, 1)
        return (try? withReply({ xcb_get_property_reply($0, cookie, $1) }) {
            xcb_get_property_value_length($0) >= 4
        }) ?? false
    }

    /// Asks for RandR's notices when monitors, outputs or the screen size change; they arrive as
    /// events numbered from the returned base, or never when the server lacks RandR.
    ///
    /// The corresponding C function is `xcb_randr_select_input`.
    func watchLayout() -> UInt8? {
        guard hasExtension(cxcb_randr_id()) else { return nil }
        let mask = XCB_RANDR_NOTIFY_MASK_SCREEN_CHANGE.rawValue | XCB_RANDR_NOTIFY_MASK_OUTPUT_CHANGE.rawValue
            | XCB_RANDR_NOTIFY_MASK_CRTC_CHANGE.rawValue
        xcb_randr_select_input(raw, root, UInt16(mask))
        flush()
        return firstEvent(of: cxcb_randr_id())
    }
}
