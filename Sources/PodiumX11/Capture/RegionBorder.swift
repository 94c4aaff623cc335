import CXCB
import PodiumCore

/// `--show-region`: a thin green border on the presenter's screen around what is captured, as
/// ZoomIt and x11grab's `-show_region` draw it. Four borderless windows lie just outside the
/// area, so the border is never in the picture; around a whole screen they are off it.
///
/// Not thread-safe: made on the capture thread, which owns the connection, and used there alone.
final class RegionBorder {
    /// The border's width, in pixels.
    static let width = 3
    static let colour = RGBColor(red: 0, green: 200, blue: 80)

    private let connection: XConnection
    private let sides: [xcb_window_t]

    init(connection: XConnection, around area: PixelRect) {
        self.connection = connection
        sides = (0..<4).map { _ in connection.generateID() }
        let screen = xcb_setup_roots_iterator(xcb_get_setup(connection.raw)).data.pointee
        // Not managed by the window manager (no frame, no focus), drawn by the server itself.
        let mask = XCB_CW_BACK_PIXEL.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue
        for (side, rect) in zip(sides, Self.rects(around: area)) {
            xcb_create_window(connection.raw, UInt8(XCB_COPY_FROM_PARENT), side, connection.root, Int16(rect.x),
                              Int16(rect.y), UInt16(rect.width), UInt16(rect.height), 0,
                              UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), screen.root_visual, mask,
                              [Self.colour.pixel, 1])
            xcb_map_window(connection.raw, side)
        }
        connection.flush()
    }

    deinit {
        for side in sides { xcb_destroy_window(connection.raw, side) }
        connection.flush()
    }

    /// Moves the border around `area`, and above the windows that covered it.
    func surround(_ area: PixelRect) {
        let mask = UInt16(XCB_CONFIG_WINDOW_X.rawValue | XCB_CONFIG_WINDOW_Y.rawValue | XCB_CONFIG_WINDOW_WIDTH.rawValue
                          | XCB_CONFIG_WINDOW_HEIGHT.rawValue | XCB_CONFIG_WINDOW_STACK_MODE.rawValue)
        for (side, rect) in zip(sides, Self.rects(around: area)) {
            let values = [UInt32(bitPattern: Int32(rect.x)), UInt32(bitPattern: Int32(rect.y)), UInt32(rect.width),
                          UInt32(rect.height), XCB_STACK_MODE_ABOVE.rawValue]
            xcb_configure_window(connection.raw, side, mask, values)
        }
        connection.flush()
    }

    /// Top, bottom, left and right, just outside `area`.
    static func rects(around area: PixelRect) -> [PixelRect] {
        let width = Self.width
        return [
            PixelRect(x: area.x - width, y: area.y - width, width: area.width + 2 * width, height: width),
            PixelRect(x: area.x - width, y: area.maxY, width: area.width + 2 * width, height: width),
            PixelRect(x: area.x - width, y: area.y, width: width, height: area.height),
            PixelRect(x: area.maxX, y: area.y, width: width, height: area.height),
        ]
    }
}
