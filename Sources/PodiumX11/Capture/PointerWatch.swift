import CXCB
import PodiumCore

/// Where the pointer is at each grab, and whether a button went down since the last: for the
/// cursor, the highlight and the zoom.
///
/// Clicks come from XInput 2's raw button presses, which the server reports however short the
/// click; without XInput 2, from the buttons the position query reports held (a click between
/// two grabs is then missed). XInput 2's raw motion says when a device moved the pointer, which
/// wakes a capture resting on a still screen. Not thread-safe: confine to the capture thread.
final class PointerWatch {
    /// Where the pointer is, relative to the window asked about (the root: on the screen).
    struct Position: Equatable {
        var x: Int
        var y: Int
        /// Whether on this screen at all.
        var onScreen: Bool
        /// Buttons 1 to 3 held.
        var pressed: Bool
    }

    private let connection: XConnection
    /// XInput's major opcode, which its events carry; `nil` without XInput 2.
    private let inputOpcode: UInt8?
    private var clicked = false
    private var wasPressed = false
    /// Whether a device moved the pointer since the last `request`; always, without XInput 2.
    /// (A warp moves no device.)
    private(set) var mayHaveMoved = true
    /// Whether the server says when the pointer moves (XInput 2), so that it need not be asked.
    var saysWhenItMoves: Bool { inputOpcode != nil }

    init(connection: XConnection) {
        self.connection = connection
        inputOpcode = Self.selectPointerEvents(on: connection)
    }

    /// Asks where the pointer is relative to `window` (the root by default); send before the
    /// grab, collect with `position` after it.
    ///
    /// The corresponding C function is `xcb_query_pointer`.
    func request(relativeTo window: xcb_window_t? = nil) -> xcb_query_pointer_cookie_t {
        mayHaveMoved = inputOpcode == nil
        return xcb_query_pointer(connection.raw, window ?? connection.root)
    }

    /// The answer to `request`.
    func position(_ cookie: xcb_query_pointer_cookie_t) -> Position? {
        let position = try? connection.withReply({ xcb_query_pointer_reply($0, cookie, $1) }) { reply in
            // Relative to the window asked about; for the root, the same as root_x and root_y.
            Position(x: Int(reply.pointee.win_x), y: Int(reply.pointee.win_y),
                     onScreen: reply.pointee.same_screen != 0,
                     pressed: reply.pointee.mask & UInt16(Self.buttonMasks) != 0)
        }
        if inputOpcode == nil, let position {
            if position.pressed && !wasPressed { clicked = true }
            wasPressed = position.pressed
        }
        return position
    }

    /// Takes an event the server sent, if it is a click (a raw press of button 1, 2 or 3; the
    /// wheel's are 4 and up) or a move.
    func handle(_ event: UnsafePointer<xcb_generic_event_t>) {
        guard let inputOpcode, event.pointee.response_type & 0x7F == UInt8(XCB_GE_GENERIC) else { return }
        let raw = UnsafeRawPointer(event).load(as: xcb_input_raw_button_press_event_t.self)
        guard raw.extension == inputOpcode else { return }
        if raw.event_type == UInt16(XCB_INPUT_RAW_MOTION) {
            mayHaveMoved = true
        } else if raw.event_type == UInt16(XCB_INPUT_RAW_BUTTON_PRESS), (1...3).contains(raw.detail) {
            clicked = true
        }
    }

    /// Whether a button went down since the last call.
    func takeClick() -> Bool {
        defer { clicked = false }
        return clicked
    }

    private static let buttonMasks = XCB_BUTTON_MASK_1.rawValue | XCB_BUTTON_MASK_2.rawValue
        | XCB_BUTTON_MASK_3.rawValue

    /// Asks for raw button presses and motion when the server has XInput 2.
    /// - Returns: XInput's major opcode, or `nil` when clicks must be seen from held buttons.
    private static func selectPointerEvents(on connection: XConnection) -> UInt8? {
        guard connection.hasExtension(cxcb_input_id()),
              let opcode = xcb_get_extension_data(connection.raw, cxcb_input_id())?.pointee.major_opcode else {
            return nil
        }
        // XInput 2 wants its version said before any of its requests.
        let cookie = xcb_input_xi_query_version(connection.raw, 2, 0)
        guard let major = try? connection.withReply({ xcb_input_xi_query_version_reply($0, cookie, $1) }, {
            $0.pointee.major_version
        }), major >= 2 else { return nil }
        cxcb_select_raw_pointer_events(connection.raw, connection.root)
        connection.flush()
        return opcode
    }
}
