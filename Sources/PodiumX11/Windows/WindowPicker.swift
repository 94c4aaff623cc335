import CXCB
import PodiumCore
#if canImport(Glibc)
import Glibc
#endif

extension XConnection {
    /// Lets the user click a window, as `xwininfo` does: the pointer is grabbed with a crosshair
    /// cursor until a button is pressed and released; the top-level window under the press
    /// (a window manager's frame, perhaps) is the answer. Blocks until the click.
    ///
    /// The corresponding C functions are `xcb_create_glyph_cursor` and `xcb_grab_pointer`.
    /// - Throws: 69 when the pointer cannot be grabbed (another program holds it), the click
    ///   was on the desktop, or the connection broke.
    func pickWindow() throws(PodiumError) -> xcb_window_t {
        // The crosshair of the core cursor font (XC_crosshair is glyph 34, its mask 35).
        let font = generateID()
        let cursor = generateID()
        xcb_open_font(raw, font, UInt16("cursor".utf8.count), "cursor")
        xcb_create_glyph_cursor(raw, cursor, font, font, 34, 35, 0, 0, 0, 0xFFFF, 0xFFFF, 0xFFFF)
        defer {
            xcb_free_cursor(raw, cursor)
            xcb_close_font(raw, font)
            flush()
        }
        let mask = UInt16(XCB_EVENT_MASK_BUTTON_PRESS.rawValue | XCB_EVENT_MASK_BUTTON_RELEASE.rawValue)
        let async = UInt8(XCB_GRAB_MODE_ASYNC.rawValue)
        let cookie = xcb_grab_pointer(raw, 0, root, mask, async, async, 0, cursor, 0)
        let status = try? withReply({ xcb_grab_pointer_reply($0, cookie, $1) }) { $0.pointee.status }
        guard status == UInt8(XCB_GRAB_STATUS_SUCCESS.rawValue) else {
            throw .unavailable("cannot grab the pointer (another program holds it)", about: .window(.pick))
        }
        defer { xcb_ungrab_pointer(raw, 0) }
        var picked: xcb_window_t?
        // Pressed over a window, then released: the release ends the pick, so the click does
        // not reach the window under it.
        while let event = xcb_wait_for_event(raw) {
            defer { free(event) }
            let type = Int32(event.pointee.response_type & 0x7F)
            if type == XCB_BUTTON_PRESS, picked == nil {
                let press = UnsafeRawPointer(event).load(as: xcb_button_press_event_t.self)
                picked = press.child
            } else if type == XCB_BUTTON_RELEASE, let picked {
                guard picked != 0 else {
                    throw .unavailable("the click was on the desktop, not a window", about: .window(.pick))
                }
                return picked
            }
        }
        throw .unavailable("lost the X display while waiting for a click")
    }
}
