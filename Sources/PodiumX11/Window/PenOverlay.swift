import CXCB
import Glibc
public import PodiumCore

/// The presenter's pen on an X11 screen: a window over the captured area, not managed by the
/// window manager, whose shape is the strokes', so the screen shows through everywhere else and
/// no compositor is needed; it never takes a click. While the pen is on, an invisible (input-only)
/// window over the same area takes the pointer and the keyboard. The X server draws the strokes
/// as any window, so the screen's capture has them in every output, and the projector shows them.
///
/// While the pen is on: a drag draws in the ink and shape chosen; `r`, `g`, `b`, `y` choose the
/// ink, `a` an arrow, `s` a rectangle (square), `f` a freehand path; `e` erases everything, Ctrl+Z
/// the last stroke; Escape (or `d`) ends pen mode.
///
/// On its own connection, on the thread that runs it.
public final class PenOverlay: PenSurface {
    private let connection: XConnection
    /// Shows the strokes.
    private let window: xcb_window_t
    /// Takes the pen's input while it is on: the shown window, shaped to the strokes, can take
    /// none where there are none (X takes input only within a window's shape).
    private let input: xcb_window_t
    /// A one-bit picture of the strokes: the window's shape.
    private let mask: xcb_pixmap_t
    private let maskGC: xcb_gcontext_t
    /// One drawing context an ink, and one that clears the mask.
    private let inkGCs: [PenDrawing.Ink: xcb_gcontext_t]
    private let clearGC: xcb_gcontext_t
    private let area: PixelRect
    private let pen: PenControl
    private var keysyms: [UInt8: UInt32]
    /// What the window shows now: the pen's version, whether it takes input, whether it is mapped.
    private var shownVersion = -1
    /// What the window shows of the drawing.
    private var progress = PenProgress()
    /// The server lost some of what the window showed (exposed): the whole drawing comes again at
    /// the next chance, while what is added goes on being drawn at once. The shape growing under a
    /// new stroke exposes the window too.
    private var exposed = false
    /// When the whole drawing was last drawn again, on the monotonic clock: at most five times a
    /// second while a shape is dragged or old points go (the server's time is the grab's too).
    private var lastWhole: UInt64 = 0
    /// When the windows were last put above the others: a program that raises its own window
    /// (a slide show at each slide) would cover them.
    private var lastRaised: UInt64 = 0
    private let clock = MonotonicClock()
    private var takesInput = false
    private var mapped = false
    /// Whether the keyboard is the pen's now, and how often it was asked for since the pen came on:
    /// the global key that turned it on holds the keyboard until it is let go.
    private var holdsKeyboard = false
    private var keyboardTries = 0
    /// Ends pen mode, while `run` runs.
    private var leave: () -> Void = {}

    /// Opens `display` and makes the window over `area` (unmapped until there is something to show).
    /// - Throws: 69 when the display does not open, is Xwayland, or has no Shape extension.
    public init(display: String?, area: PixelRect, pen: PenControl) throws(PodiumError) {
        connection = try XConnection(display: display)
        guard !connection.isXWayland else {
            throw .unavailable("the pen: \(connection.displayName) is Xwayland, where a window cannot lie over the "
                               + "desktop's own")
        }
        guard connection.hasExtension(cxcb_shape_id()) else {
            throw .unavailable("the pen: the X server \(connection.displayName) has no Shape extension")
        }
        self.area = area
        self.pen = pen
        keysyms = connection.keyboardMapping()
        let raw = connection.raw
        window = connection.generateID()
        let screen = connection.screen
        let events = XCB_EVENT_MASK_BUTTON_PRESS.rawValue | XCB_EVENT_MASK_BUTTON_RELEASE.rawValue
            | XCB_EVENT_MASK_BUTTON_MOTION.rawValue | XCB_EVENT_MASK_KEY_PRESS.rawValue
        // Neither is managed by the window manager (no frame, never raised above by focus); the
        // shown one is black underneath what is drawn (nothing of it shows outside the strokes).
        xcb_create_window(raw, UInt8(XCB_COPY_FROM_PARENT), window, connection.root, Int16(area.x), Int16(area.y),
                          UInt16(area.width), UInt16(area.height), 0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue),
                          screen.root_visual,
                          XCB_CW_BACK_PIXEL.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue | XCB_CW_EVENT_MASK.rawValue,
                          [screen.black_pixel, 1, XCB_EVENT_MASK_EXPOSURE.rawValue])
        input = connection.generateID()
        xcb_create_window(raw, 0, input, connection.root, Int16(area.x), Int16(area.y), UInt16(area.width),
                          UInt16(area.height), 0, UInt16(XCB_WINDOW_CLASS_INPUT_ONLY.rawValue),
                          UInt32(XCB_COPY_FROM_PARENT),
                          XCB_CW_OVERRIDE_REDIRECT.rawValue | XCB_CW_EVENT_MASK.rawValue | XCB_CW_CURSOR.rawValue,
                          [1, events, Self.pencil(connection)])
        mask = connection.generateID()
        xcb_create_pixmap(raw, 1, mask, window, UInt16(area.width), UInt16(area.height))
        let width = UInt32(PenDrawing.lineWidth)
        let lines = XCB_GC_FOREGROUND.rawValue | XCB_GC_LINE_WIDTH.rawValue | XCB_GC_CAP_STYLE.rawValue
            | XCB_GC_JOIN_STYLE.rawValue
        let round = [XCB_CAP_STYLE_ROUND.rawValue, XCB_JOIN_STYLE_ROUND.rawValue]
        maskGC = connection.generateID()
        xcb_create_gc(raw, maskGC, mask, lines, [1, width] + round)
        clearGC = connection.generateID()
        xcb_create_gc(raw, clearGC, mask, XCB_GC_FOREGROUND.rawValue, [0])
        var inks: [PenDrawing.Ink: xcb_gcontext_t] = [:]
        for ink in PenDrawing.Ink.allCases {
            let context = connection.generateID()
            // The root visual's pixels are 24-bit TrueColor, red highest: the ink's BGRA word is one.
            xcb_create_gc(raw, context, window, lines, [ink.pixel & 0x00FF_FFFF, width] + round)
            inks[ink] = context
        }
        inkGCs = inks
        // The strokes never take a click.
        xcb_shape_rectangles(raw, UInt8(XCB_SHAPE_SO_SET.rawValue), UInt8(XCB_SHAPE_SK_INPUT.rawValue),
                             UInt8(XCB_CLIP_ORDERING_UNSORTED.rawValue), window, 0, 0, 0, nil)
        connection.flush()
    }

    deinit {
        xcb_ungrab_keyboard(connection.raw, xcb_timestamp_t(XCB_CURRENT_TIME))
        xcb_destroy_window(connection.raw, input)
        xcb_destroy_window(connection.raw, window)
        xcb_free_pixmap(connection.raw, mask)
        connection.flush()
    }

    /// Follows the pen and takes its input until `isStopping` says so or the display closes.
    /// - Parameters:
    ///   - said: a line to say (a keyboard another program holds).
    ///   - leave: ends pen mode (Escape), as the run's control says it.
    /// - Returns: why it stopped early (the display closed), or `nil` when asked to.
    public func run(isStopping: () -> Bool, said: (String) -> Void, leave: @escaping () -> Void) -> String? {
        self.leave = leave
        defer { self.leave = {} }
        var descriptors = [pollfd(fd: xcb_get_file_descriptor(connection.raw), events: Int16(POLLIN), revents: 0),
                           pollfd(fd: pen.changed.descriptor, events: Int16(POLLIN), revents: 0)]
        while !isStopping() {
            guard !connection.isBroken else { return "the pen stopped: the X display \(connection.displayName) closed" }
            pen.changed.answer()
            follow(said: said)
            // Events a reply brought in are already queued, where poll would not see them.
            var handled = false
            while let event = xcb_poll_for_event(connection.raw) {
                defer { free(event) }
                handle(event)
                handled = true
            }
            // Woken by the pointer, the keys and the pen's changes; while shown, often enough to
            // stay raised; else now and then to see that the run stopped.
            if !handled { _ = poll(&descriptors, 2, mapped ? 250 : 500) }
        }
        return nil
    }

    /// Shows what the pen is now: the window mapped while there are strokes or the pen is on,
    /// taking input while it is on, its shape and pixels the strokes'.
    private func follow(said: (String) -> Void) {
        let now = pen.now
        if now.isOn != takesInput {
            takesInput = now.isOn
            if now.isOn {
                show(true)
                xcb_map_window(connection.raw, input)
                raise()
                keyboardTries = 0
            } else {
                xcb_unmap_window(connection.raw, input)
                xcb_ungrab_keyboard(connection.raw, xcb_timestamp_t(XCB_CURRENT_TIME))
                holdsKeyboard = false
            }
        }
        if now.isOn && !holdsKeyboard { grabKeyboard(said: said) }
        if now.version != shownVersion || exposed {
            let drawing = now.drawing
            let wholeAllowed = clock.now() - lastWhole > 200_000_000
            if exposed && wholeAllowed {
                (shownVersion, exposed) = (now.version, false)
                redraw(drawing)
            } else if progress.onlyGrew(drawing) {
                shownVersion = now.version
                add(drawing)
            } else if wholeAllowed {
                shownVersion = now.version
                redraw(drawing)
            }
            show(now.isOn || !drawing.strokes.isEmpty)
        }
        if mapped, clock.now() - lastRaised > 250_000_000 { raise() }
        connection.flush()
    }

    /// Puts the strokes above every other window, and the pen's input above them while it is on.
    private func raise() {
        let above = [XCB_STACK_MODE_ABOVE.rawValue]
        xcb_configure_window(connection.raw, window, UInt16(XCB_CONFIG_WINDOW_STACK_MODE.rawValue), above)
        if takesInput {
            xcb_configure_window(connection.raw, input, UInt16(XCB_CONFIG_WINDOW_STACK_MODE.rawValue), above)
        }
        lastRaised = clock.now()
    }

    private func show(_ shown: Bool) {
        guard shown != mapped else { return }
        mapped = shown
        if shown {
            xcb_map_window(connection.raw, window)
            raise()
        } else {
            xcb_unmap_window(connection.raw, window)
        }
    }

    /// Draws every stroke into the window and into its shape, anew.
    ///
    /// The corresponding C functions are `xcb_poly_segment` and `xcb_shape_mask`.
    private func redraw(_ drawing: PenDrawing) {
        let raw = connection.raw
        let whole = xcb_rectangle_t(x: 0, y: 0, width: UInt16(area.width), height: UInt16(area.height))
        // The shape first: the X server draws only within a window's shape, so strokes drawn
        // before it grew would be lost where it grows.
        xcb_poly_fill_rectangle(raw, mask, clearGC, 1, [whole])
        let strokes = drawing.strokes.map { (ink: inkGCs[$0.ink], segments: Self.segments($0.segments)) }
        for stroke in strokes {
            xcb_poly_segment(raw, mask, maskGC, UInt32(stroke.segments.count), stroke.segments)
        }
        xcb_shape_mask(raw, UInt8(XCB_SHAPE_SO_SET.rawValue), UInt8(XCB_SHAPE_SK_BOUNDING.rawValue), window, 0, 0,
                       mask)
        xcb_clear_area(raw, 0, window, 0, 0, 0, 0)
        for stroke in strokes {
            guard let ink = stroke.ink else { continue }
            xcb_poly_segment(raw, window, ink, UInt32(stroke.segments.count), stroke.segments)
        }
        progress.shown(drawing)
        lastWhole = clock.now()
    }

    /// Draws what was added since the window was last drawn (a path that grew, new strokes): into
    /// the window, and into its shape as the union of a small picture of just that.
    private func add(_ drawing: PenDrawing) {
        let raw = connection.raw
        for (ink, added) in progress.additions(in: drawing) {
            guard let context = inkGCs[ink] else { continue }
            let segments = Self.segments(added)
            // Into the shape first, then the window: drawn before the shape grew, the new part
            // would be lost (and shown black until the whole drawing came again).
            xcb_poly_segment(raw, mask, maskGC, UInt32(segments.count), segments)
            defer { xcb_poly_segment(raw, window, context, UInt32(segments.count), segments) }
            // Only the added part's picture becomes a region: its box, a line's width around.
            let reach = PenDrawing.lineWidth
            let points = added.flatMap { [$0.0, $0.1] }
            let left = max(0, (points.map(\.x).min() ?? 0) - reach)
            let top = max(0, (points.map(\.y).min() ?? 0) - reach)
            let right = min(area.width, (points.map(\.x).max() ?? 0) + reach + 1)
            let bottom = min(area.height, (points.map(\.y).max() ?? 0) + reach + 1)
            guard left < right, top < bottom else { continue }
            let part = connection.generateID()
            xcb_create_pixmap(raw, 1, part, window, UInt16(right - left), UInt16(bottom - top))
            xcb_copy_area(raw, mask, part, maskGC, Int16(left), Int16(top), 0, 0, UInt16(right - left),
                          UInt16(bottom - top))
            xcb_shape_mask(raw, UInt8(XCB_SHAPE_SO_UNION.rawValue), UInt8(XCB_SHAPE_SK_BOUNDING.rawValue), window,
                           Int16(left), Int16(top), part)
            xcb_free_pixmap(raw, part)
        }
    }

    private static func segments(_ lines: [(PixelPoint, PixelPoint)]) -> [xcb_segment_t] {
        lines.map { from, to in
            xcb_segment_t(x1: Int16(clamping: from.x), y1: Int16(clamping: from.y), x2: Int16(clamping: to.x),
                          y2: Int16(clamping: to.y))
        }
    }

    /// Takes the keyboard for the pen's keys; another program that holds it for more than a second
    /// is said once.
    private func grabKeyboard(said: (String) -> Void) {
        let cookie = xcb_grab_keyboard(connection.raw, 0, input, xcb_timestamp_t(XCB_CURRENT_TIME),
                                       UInt8(XCB_GRAB_MODE_ASYNC.rawValue), UInt8(XCB_GRAB_MODE_ASYNC.rawValue))
        let status = try? connection.withReply({ xcb_grab_keyboard_reply($0, cookie, $1) }) { $0.pointee.status }
        holdsKeyboard = status == UInt8(XCB_GRAB_STATUS_SUCCESS.rawValue)
        keyboardTries += 1
        if !holdsKeyboard && keyboardTries == 30 {
            said("the pen: another program holds the keyboard; its keys (colours, e, Ctrl+Z, Escape) are not "
                 + "heard until it lets go, the pen still draws")
        }
    }

    /// A drag draws; keys choose, erase, undo, or end pen mode.
    private func handle(_ event: UnsafeMutablePointer<xcb_generic_event_t>) {
        let raw = UnsafeRawPointer(event)
        switch Int32(event.pointee.response_type & 0x7F) {
        case XCB_EXPOSE:
            exposed = true
        case XCB_BUTTON_PRESS:
            let press = raw.load(as: xcb_button_press_event_t.self)
            guard press.detail == 1 else { return }
            pen.pressed(at: PixelPoint(x: Int(press.event_x), y: Int(press.event_y)))
        case XCB_MOTION_NOTIFY:
            let motion = raw.load(as: xcb_motion_notify_event_t.self)
            pen.moved(to: PixelPoint(x: Int(motion.event_x), y: Int(motion.event_y)))
        case XCB_BUTTON_RELEASE:
            guard raw.load(as: xcb_button_release_event_t.self).detail == 1 else { return }
            pen.released()
        case XCB_KEY_PRESS:
            let press = raw.load(as: xcb_key_press_event_t.self)
            let control = press.state & UInt16(XCB_MOD_MASK_CONTROL.rawValue) != 0
            if pen.typed(keysym: keysyms[press.detail] ?? 0, control: control) { leave() }
        case XCB_MAPPING_NOTIFY:
            keysyms = connection.keyboardMapping()
        default:
            break
        }
    }

    /// The cursor font's pencil, as the pen's pointer.
    private static func pencil(_ connection: XConnection) -> UInt32 {
        let font = connection.generateID()
        let name = "cursor"
        xcb_open_font(connection.raw, font, UInt16(name.utf8.count), name)
        let cursor = connection.generateID()
        // Glyph 86 is XC_pencil; its mask the next glyph. Black on white.
        xcb_create_glyph_cursor(connection.raw, cursor, font, font, 86, 87, 0, 0, 0, 0xFFFF, 0xFFFF, 0xFFFF)
        xcb_close_font(connection.raw, font)
        return cursor
    }
}
