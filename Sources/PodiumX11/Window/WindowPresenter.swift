import CXCB
public import PodiumCore

/// A borderless window on one monitor of a display, showing pictures Podium hands it.
///
/// Fullscreen uses an override-redirect window over the monitor's area, which works with or
/// without a window manager; `--windowed` gives a normal managed window.
/// Not thread-safe: confine to the window thread, which owns the connection.
public final class WindowPresenter: @unchecked Sendable {
    /// What happened to the window since the last look.
    public enum Event: Equatable, Sendable {
        case exposed
        case resized(PixelSize)
        case key(String)
        case closed
    }

    public private(set) var size: PixelSize
    private let connection: XConnection
    private let window: xcb_window_t
    private let context: xcb_gcontext_t
    private let maximumRequestBytes: Int
    private let area: PixelRect
    private var fullscreen: Bool
    /// The first keysym of each keycode, to name the keys pressed.
    private var keysyms: [UInt8: UInt32] = [:]

    /// Creates and shows the window.
    ///
    /// The corresponding C functions are `xcb_create_window` and `xcb_map_window`.
    /// - Parameters:
    ///   - area: the monitor's rectangle on the target screen; the window covers it when `fullscreen`.
    ///   - background: the colour of the bars around the picture.
    public init(connection: XConnection, area: PixelRect, fullscreen: Bool, title: String, background: RGBColor) throws(PodiumError) {
        try connection.requireBGRAPixels()
        self.connection = connection
        self.area = area
        self.fullscreen = fullscreen
        size = Self.geometry(area: area, fullscreen: fullscreen).size
        let window = connection.generateID()
        let context = connection.generateID()
        self.window = window
        self.context = context
        let events = XCB_EVENT_MASK_EXPOSURE.rawValue | XCB_EVENT_MASK_KEY_PRESS.rawValue | XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue
        // Values in the order of their mask bits: background pixel, override-redirect, event mask.
        let values: [UInt32] = [background.pixel, fullscreen ? 1 : 0, events]
        let mask = XCB_CW_BACK_PIXEL.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue | XCB_CW_EVENT_MASK.rawValue
        let placed = Self.geometry(area: area, fullscreen: fullscreen)
        let origin = (placed.x, placed.y)
        do {
            try connection.check(xcb_create_window_checked(
                connection.raw, UInt8(XCB_COPY_FROM_PARENT), window, connection.root, Int16(origin.0), Int16(origin.1),
                UInt16(size.width), UInt16(size.height), 0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue),
                connection.screen.root_visual, mask, values
            ))
        } catch {
            throw .unavailable("cannot create a window on \(connection.displayName): \(error)")
        }
        xcb_create_gc(connection.raw, context, window, XCB_GC_FOREGROUND.rawValue, [background.pixel])
        title.withCString { name in
            _ = xcb_change_property(connection.raw, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, XCB_ATOM_WM_NAME.rawValue,
                                    XCB_ATOM_STRING.rawValue, 8, UInt32(title.utf8.count), name)
        }
        xcb_map_window(connection.raw, window)
        // With BIG-REQUESTS this is megabytes; without it 256 KiB, and pictures go in strips.
        maximumRequestBytes = Int(xcb_get_maximum_request_length(connection.raw)) * 4
        keysyms = Self.keyboardMapping(connection)
        connection.flush()
    }

    /// Switches between covering the monitor and a normal window half its size.
    ///
    /// An override-redirect window is unmapped to change that attribute, then mapped again.
    public func toggleFullscreen() {
        fullscreen.toggle()
        let frame = Self.geometry(area: area, fullscreen: fullscreen)
        xcb_unmap_window(connection.raw, window)
        xcb_change_window_attributes(connection.raw, window, XCB_CW_OVERRIDE_REDIRECT.rawValue, [fullscreen ? 1 : 0])
        let mask = UInt16(XCB_CONFIG_WINDOW_X.rawValue | XCB_CONFIG_WINDOW_Y.rawValue | XCB_CONFIG_WINDOW_WIDTH.rawValue | XCB_CONFIG_WINDOW_HEIGHT.rawValue)
        xcb_configure_window(connection.raw, window, mask, [UInt32(bitPattern: Int32(frame.x)), UInt32(bitPattern: Int32(frame.y)), UInt32(frame.width), UInt32(frame.height)])
        xcb_map_window(connection.raw, window)
        size = frame.size
        connection.flush()
    }

    /// The window's rectangle: the monitor, or a window half its size in the middle.
    static func geometry(area: PixelRect, fullscreen: Bool) -> PixelRect {
        fullscreen ? area : PixelRect(x: area.x + area.width / 4, y: area.y + area.height / 4, width: area.width / 2, height: area.height / 2)
    }

    private static func keyboardMapping(_ connection: XConnection) -> [UInt8: UInt32] {
        let setup = xcb_get_setup(connection.raw)!.pointee
        let first = setup.min_keycode
        let count = UInt8(Int(setup.max_keycode) - Int(first) + 1)
        return (try? connection.withReply({ xcb_get_keyboard_mapping_reply($0, xcb_get_keyboard_mapping($0, first, count), $1) }) { reply in
            let perCode = Int(reply.pointee.keysyms_per_keycode)
            let symbols = UnsafeBufferPointer(start: xcb_get_keyboard_mapping_keysyms(reply), count: Int(xcb_get_keyboard_mapping_keysyms_length(reply)))
            var map: [UInt8: UInt32] = [:]
            for index in 0..<Int(count) where index * perCode < symbols.count {
                map[UInt8(Int(first) + index)] = symbols[index * perCode]
            }
            return map
        }) ?? [:]
    }

    deinit {
        xcb_destroy_window(connection.raw, window)
        xcb_free_gc(connection.raw, context)
        connection.flush()
    }

    public var isBroken: Bool { connection.isBroken }

    /// Draws `picture` (BGRA rows, `bytesPerRow` apart) at `destination` and the background around it.
    ///
    /// The corresponding C functions are `xcb_poly_fill_rectangle` and `xcb_put_image`.
    public func present(_ picture: UnsafeRawPointer, bytesPerRow: Int, at destination: PixelRect) {
        // Up to four bars around the picture, on the stack: the hot path allocates nothing.
        withUnsafeTemporaryAllocation(of: xcb_rectangle_t.self, capacity: 4) { bars in
            var count = 0
            func bar(_ x: Int, _ y: Int, _ width: Int, _ height: Int) {
                guard width > 0 && height > 0 else { return }
                bars[count] = xcb_rectangle_t(x: Int16(x), y: Int16(y), width: UInt16(width), height: UInt16(height))
                count += 1
            }
            bar(0, 0, size.width, destination.y)
            bar(0, destination.maxY, size.width, size.height - destination.maxY)
            bar(0, destination.y, destination.x, destination.height)
            bar(destination.maxX, destination.y, size.width - destination.maxX, destination.height)
            if count > 0 { xcb_poly_fill_rectangle(connection.raw, window, context, UInt32(count), bars.baseAddress) }
        }

        let rowBytes = destination.width * 4
        let rowsPerRequest = max(1, (maximumRequestBytes - 64) / rowBytes)
        var row = 0
        while row < destination.height {
            let rows = min(rowsPerRequest, destination.height - row)
            let start = picture + row * bytesPerRow
            xcb_put_image(connection.raw, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), window, context,
                          UInt16(destination.width), UInt16(rows), Int16(destination.x), Int16(destination.y + row), 0,
                          connection.screen.root_depth, UInt32(rows * rowBytes), start.assumingMemoryBound(to: UInt8.self))
            row += rows
        }
        connection.flush()
    }

    /// The keys Podium answers to, by X keysym.
    static let keyNames: [UInt32: String] = [0x20: "space", 0x66: "f", 0x71: "q", 0xFF1B: "Escape"]

    /// The events that arrived since the last call; never blocks.
    public func pendingEvents() -> [Event] {
        var events: [Event] = []
        while let event = xcb_poll_for_event(connection.raw) {
            defer { free(event) }
            switch Int32(event.pointee.response_type & 0x7F) {
            case XCB_EXPOSE:
                events.append(.exposed)
            case XCB_CONFIGURE_NOTIFY:
                let configure = UnsafeRawPointer(event).assumingMemoryBound(to: xcb_configure_notify_event_t.self).pointee
                let newSize = PixelSize(width: Int(configure.width), height: Int(configure.height))
                if newSize != size {
                    size = newSize
                    events.append(.resized(newSize))
                }
            case XCB_KEY_PRESS:
                let press = UnsafeRawPointer(event).assumingMemoryBound(to: xcb_key_press_event_t.self).pointee
                if let key = Self.keyNames[keysyms[press.detail] ?? 0] { events.append(.key(key)) }
            case XCB_DESTROY_NOTIFY:
                events.append(.closed)
            default:
                break
            }
        }
        if connection.isBroken { events.append(.closed) }
        return events
    }
}
