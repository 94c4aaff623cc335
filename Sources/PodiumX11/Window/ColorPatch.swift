import CXCB
public import PodiumCore
#if canImport(Glibc)
import Glibc
#endif

/// A small borderless window of one colour, on top of everything: a marker whose changes can be
/// timed on the other side of a mirror.
///
/// Not thread-safe: confine to one thread.
public final class ColorPatch {
    private let connection: XConnection
    private let window: xcb_window_t

    /// The corresponding C functions are `xcb_create_window` and `xcb_map_window`.
    public init(connection: XConnection, rect: PixelRect, color: RGBColor) throws(PodiumError) {
        self.connection = connection
        window = connection.generateID()
        let values: [UInt32] = [color.pixel, 1]
        do {
            try connection.check(xcb_create_window_checked(
                connection.raw, UInt8(XCB_COPY_FROM_PARENT), window, connection.root, Int16(rect.x), Int16(rect.y),
                UInt16(rect.width), UInt16(rect.height), 0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue),
                connection.screen.root_visual, XCB_CW_BACK_PIXEL.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue, values
            ))
        } catch {
            throw .unavailable("cannot create a window on \(connection.displayName): \(error)")
        }
        xcb_map_window(connection.raw, window)
        connection.sync()
    }

    deinit {
        xcb_destroy_window(connection.raw, window)
        connection.flush()
    }

    /// Repaints the patch in `color` and returns once the server has drawn it.
    ///
    /// The corresponding C functions are `xcb_change_window_attributes` and `xcb_clear_area`.
    public func paint(_ color: RGBColor) {
        xcb_change_window_attributes(connection.raw, window, XCB_CW_BACK_PIXEL.rawValue, [color.pixel])
        xcb_clear_area(connection.raw, 0, window, 0, 0, 0, 0)
        connection.sync()
    }
}

extension XConnection {
    /// Waits until the server has handled every request sent so far (one round trip).
    public func sync() {
        free(xcb_get_input_focus_reply(raw, xcb_get_input_focus(raw), nil))
    }

    /// The colours of a rectangle of the root window, row by row; slow, for checks, not for capture.
    ///
    /// The corresponding C function is `xcb_get_image`.
    public func colors(in rect: PixelRect) throws(X11RequestError) -> [RGBColor] {
        let cookie = xcb_get_image(raw, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), root, Int16(rect.x), Int16(rect.y),
                                   UInt16(rect.width), UInt16(rect.height), ~0)
        return try withReply({ xcb_get_image_reply($0, cookie, $1) }) { reply in
            let count = min(rect.size.area, Int(xcb_get_image_data_length(reply)) / 4)
            let pixels = UnsafeRawPointer(xcb_get_image_data(reply)!).assumingMemoryBound(to: UInt32.self)
            return (0..<count).map { RGBColor(pixel: pixels[$0]) }
        }
    }
}
