import CXCB
public import PodiumCore
import Synchronization

/// Plays a viewer's pointer and keys on an area of an X screen through XTest, as if a mouse and
/// a keyboard of this machine did: the pointer only within the area (a place outside is taken to
/// its edge), the keys to whatever has the focus, while that is on the area. A character that
/// needs Shift gets it.
public final class XTestInput: InputInjector {
    private let area: PixelRect
    private let connection: Mutex<XConnection>
    /// For each keysym, its keycode and whether it is the shifted level.
    private let keys: [UInt32: (code: UInt8, shifted: Bool)]
    private let shift: UInt8?

    /// - Throws: 69 when the display does not open or has no XTest.
    public init(display: String, area: PixelRect) throws(PodiumError) {
        let connection = try XConnection(display: display)
        guard connection.hasExtension(cxcb_test_id()) else {
            throw .unavailable("the X server \(connection.displayName) has no XTest extension", about: .viewerInput)
        }
        var keys: [UInt32: (code: UInt8, shifted: Bool)] = [:]
        for (code, levels) in connection.keyboardLevels().sorted(by: { $0.key < $1.key }) {
            for (level, keysym) in levels.prefix(2).enumerated() where keysym != 0 && keys[keysym] == nil {
                keys[keysym] = (code, level == 1)
            }
        }
        // Letters are listed once, lower case: the upper case is its shifted level.
        for letter in UInt32(0x61)...0x7A {
            if let lower = keys[letter], keys[letter - 0x20] == nil { keys[letter - 0x20] = (lower.code, true) }
        }
        self.keys = keys
        shift = keys[0xFFE1]?.code
        self.area = area
        self.connection = Mutex(connection)
    }

    public func play(_ events: [RemoteInput]) {
        connection.withLock { connection in
            for event in events {
                switch event {
                case .move(let x, let y):
                    let column = area.x + min(area.width - 1, max(0, Int((x * Double(area.width)).rounded(.down))))
                    let row = area.y + min(area.height - 1, max(0, Int((y * Double(area.height)).rounded(.down))))
                    fake(UInt8(XCB_MOTION_NOTIFY), detail: 0, x: column, y: row, on: connection)
                case .button(let button, let down):
                    guard (1...3).contains(button) else { continue }
                    fake(UInt8(down ? XCB_BUTTON_PRESS : XCB_BUTTON_RELEASE), detail: UInt8(button), on: connection)
                case .key(let keysym, let down):
                    guard let key = keys[keysym] else { continue }
                    let shifted = key.shifted ? shift : nil
                    if down, let shifted { fake(UInt8(XCB_KEY_PRESS), detail: shifted, on: connection) }
                    fake(UInt8(down ? XCB_KEY_PRESS : XCB_KEY_RELEASE), detail: key.code, on: connection)
                    if down, let shifted { fake(UInt8(XCB_KEY_RELEASE), detail: shifted, on: connection) }
                }
            }
            connection.flush()
        }
    }

    /// Whether the window with the focus has its middle on the area; with the focus following the
    /// pointer (no window manager's focus), whether the pointer is on it.
    public var keysReachTheScreen: Bool {
        connection.withLock { connection in
            let (raw, root) = (connection.raw, connection.root)
            let focus = try? connection.withReply({ xcb_get_input_focus_reply($0, xcb_get_input_focus(raw), $1) }) {
                $0.pointee.focus
            }
            // None (0) takes no keys; PointerRoot (1) gives them to the window under the pointer.
            guard let focus, focus != 0 else { return false }
            if focus == 1 || focus == root {
                let query = xcb_query_pointer(raw, root)
                let pointer = try? connection.withReply({ xcb_query_pointer_reply($0, query, $1) }) {
                    (x: Int($0.pointee.root_x), y: Int($0.pointee.root_y))
                }
                return pointer.map { area.contains(x: $0.x, y: $0.y) } ?? false
            }
            let geometry = xcb_get_geometry(raw, focus)
            let place = xcb_translate_coordinates(raw, focus, root, 0, 0)
            guard let middle = try? connection.withReply({ xcb_get_geometry_reply($0, geometry, $1) }, {
                (x: Int($0.pointee.width) / 2, y: Int($0.pointee.height) / 2)
            }) else {
                xcb_discard_reply(raw, place.sequence)
                return false
            }
            guard let corner = try? connection.withReply({ xcb_translate_coordinates_reply($0, place, $1) }, {
                (x: Int($0.pointee.dst_x), y: Int($0.pointee.dst_y))
            }) else { return false }
            return area.contains(x: corner.x + middle.x, y: corner.y + middle.y)
        }
    }

    /// One event as a device of this machine would send it.
    ///
    /// The corresponding C function is `xcb_test_fake_input`.
    private func fake(_ type: UInt8, detail: UInt8, x: Int = 0, y: Int = 0, on connection: XConnection) {
        xcb_test_fake_input(connection.raw, type, detail, UInt32(XCB_CURRENT_TIME), type == UInt8(XCB_MOTION_NOTIFY)
                            ? connection.root : UInt32(XCB_NONE), Int16(clamping: x), Int16(clamping: y), 0)
    }
}
