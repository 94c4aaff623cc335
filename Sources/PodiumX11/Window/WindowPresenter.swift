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

    /// Creates and shows the window.
    ///
    /// The corresponding C functions are `xcb_create_window` and `xcb_map_window`.
    /// - Parameters:
    ///   - area: the monitor's rectangle on the target screen; the window covers it when `fullscreen`.
    ///   - background: the colour of the bars around the picture.
    public init(connection: XConnection, area: PixelRect, fullscreen: Bool, title: String, background: RGBColor) throws(PodiumError) {
        try connection.requireBGRAPixels()
        self.connection = connection
        size = fullscreen ? area.size : PixelSize(width: area.width / 2, height: area.height / 2)
        let window = connection.generateID()
        let context = connection.generateID()
        self.window = window
        self.context = context
        let events = XCB_EVENT_MASK_EXPOSURE.rawValue | XCB_EVENT_MASK_KEY_PRESS.rawValue | XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue
        // Values in the order of their mask bits: background pixel, override-redirect, event mask.
        let values: [UInt32] = [background.pixel, fullscreen ? 1 : 0, events]
        let mask = XCB_CW_BACK_PIXEL.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue | XCB_CW_EVENT_MASK.rawValue
        let origin = fullscreen ? (area.x, area.y) : (area.x + area.width / 4, area.y + area.height / 4)
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
        connection.flush()
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
