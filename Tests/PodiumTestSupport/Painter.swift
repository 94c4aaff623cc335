import CXCB
import Foundation

/// Draws known pixels on a display's root window, through a connection of its own.
public final class Painter {
    private let connection: OpaquePointer
    private let screen: UnsafeMutablePointer<xcb_screen_t>
    private let context: xcb_gcontext_t

    public init(display: String) throws {
        var screenNumber: Int32 = 0
        connection = xcb_connect(display, &screenNumber)
        guard xcb_connection_has_error(connection) == 0 else { throw TestFailure("cannot connect to \(display)") }
        screen = xcb_setup_roots_iterator(xcb_get_setup(connection)).data
        context = xcb_generate_id(connection)
        xcb_create_gc(connection, context, screen.pointee.root, 0, nil)
    }

    deinit { xcb_disconnect(connection) }

    /// Puts `pattern` on the root window with its top-left corner at (`x`, `y`), and waits until
    /// the server has drawn it.
    public func draw(_ pattern: TestPattern, x: Int = 0, y: Int = 0) throws {
        let rowBytes = pattern.width * 4
        // Strips well under the core protocol's request size limit.
        let rowsPerStrip = max(1, 60_000 / rowBytes)
        var failure: UInt8?
        pattern.bgra.withUnsafeBufferPointer { bytes in
            var row = 0
            while row < pattern.height {
                let rows = min(rowsPerStrip, pattern.height - row)
                let cookie = xcb_put_image_checked(
                    connection, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), screen.pointee.root, context,
                    UInt16(pattern.width), UInt16(rows), Int16(x), Int16(y + row), 0, screen.pointee.root_depth,
                    UInt32(rows * rowBytes), bytes.baseAddress! + row * rowBytes
                )
                if let error = xcb_request_check(connection, cookie) {
                    failure = error.pointee.error_code
                    free(error)
                }
                row += rows
            }
        }
        if let failure { throw TestFailure("PutImage failed with X error \(failure)") }
    }

    /// Fills a rectangle with one BGRA colour.
    public func fill(x: Int, y: Int, width: Int, height: Int, bgra: (UInt8, UInt8, UInt8)) throws {
        try draw(TestPattern.solid(width: width, height: height, bgra: bgra), x: x, y: y)
    }
}

extension Painter {
    /// Presses the key for `keysym` (0x20 is space, 0x71 is q) in every top-level window, as a
    /// keyboard would: a KeyPress event sent to each.
    public func pressKey(keysym: UInt32) throws {
        let setup = xcb_get_setup(connection)!.pointee
        let count = UInt8(Int(setup.max_keycode) - Int(setup.min_keycode) + 1)
        guard let mapping = xcb_get_keyboard_mapping_reply(
            connection, xcb_get_keyboard_mapping(connection, setup.min_keycode, count), nil) else {
            throw TestFailure("no keyboard mapping")
        }
        defer { free(mapping) }
        let perCode = Int(mapping.pointee.keysyms_per_keycode)
        let symbols = UnsafeBufferPointer(start: xcb_get_keyboard_mapping_keysyms(mapping),
                                          count: Int(xcb_get_keyboard_mapping_keysyms_length(mapping)))
        guard let index = stride(from: 0, to: symbols.count, by: perCode).first(where: { symbols[$0] == keysym }) else {
            throw TestFailure("no key for keysym \(keysym)")
        }
        let keycode = UInt8(Int(setup.min_keycode) + index / perCode)
        try sendToTopLevelWindows(mask: XCB_EVENT_MASK_KEY_PRESS.rawValue) { window in
            var event = xcb_key_press_event_t()
            event.response_type = UInt8(XCB_KEY_PRESS)
            event.detail = keycode
            event.root = screen.pointee.root
            event.event = window
            event.same_screen = 1
            return withUnsafeBytes(of: &event) { Array($0) }
        }
    }

    /// Drags with the left button, as a mouse would, in every top-level window whose top-left
    /// corner is at `origin`: press at `from`, move to `to`, release (screen coordinates).
    public func drag(from: (x: Int, y: Int), to: (x: Int, y: Int), windowOrigin origin: (x: Int, y: Int)) throws {
        let steps: [(type: Int32, mask: UInt32, at: (x: Int, y: Int))] = [
            (XCB_BUTTON_PRESS, XCB_EVENT_MASK_BUTTON_PRESS.rawValue, from),
            (XCB_MOTION_NOTIFY, XCB_EVENT_MASK_BUTTON_1_MOTION.rawValue, ((from.x + to.x) / 2, (from.y + to.y) / 2)),
            (XCB_MOTION_NOTIFY, XCB_EVENT_MASK_BUTTON_1_MOTION.rawValue, to),
            (XCB_BUTTON_RELEASE, XCB_EVENT_MASK_BUTTON_RELEASE.rawValue, to),
        ]
        for step in steps {
            try sendToTopLevelWindows(mask: step.mask) { window in
                // Press, release and motion events share one layout.
                var event = xcb_button_press_event_t()
                event.response_type = UInt8(step.type)
                event.detail = step.type == XCB_MOTION_NOTIFY ? 0 : 1
                event.root = screen.pointee.root
                event.event = window
                event.root_x = Int16(step.at.x)
                event.root_y = Int16(step.at.y)
                event.event_x = Int16(step.at.x - origin.x)
                event.event_y = Int16(step.at.y - origin.y)
                event.state = step.type == XCB_BUTTON_PRESS ? 0 : UInt16(XCB_BUTTON_MASK_1.rawValue)
                event.same_screen = 1
                return withUnsafeBytes(of: &event) { Array($0) }
            }
        }
    }

    /// Sends the event `make` builds for each top-level window to it, and waits until the server has.
    private func sendToTopLevelWindows(mask: UInt32, _ make: (xcb_window_t) -> [UInt8]) throws {
        guard let tree = xcb_query_tree_reply(connection, xcb_query_tree(connection, screen.pointee.root), nil) else {
            throw TestFailure("no window tree")
        }
        defer { free(tree) }
        let children = UnsafeBufferPointer(start: xcb_query_tree_children(tree),
                                           count: Int(xcb_query_tree_children_length(tree)))
        for window in children {
            var bytes = make(window)
            bytes += [UInt8](repeating: 0, count: max(0, 32 - bytes.count))
            bytes.withUnsafeBytes { event in
                _ = xcb_send_event(connection, 0, window, mask, event.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
        }
        free(xcb_get_input_focus_reply(connection, xcb_get_input_focus(connection), nil))
    }
}

extension TestPattern {
    init(raw: [UInt8], width: Int, height: Int) {
        self.init(width: width, height: height, bgra: raw)
    }
}
