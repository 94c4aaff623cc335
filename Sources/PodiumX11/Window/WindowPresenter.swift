import CXCB
public import PodiumCore
#if canImport(Glibc)
import Glibc
#endif

/// A window on one monitor of a display, showing pictures Podium hands it.
///
/// Fullscreen asks an EWMH window manager for its fullscreen state when one runs, and otherwise
/// covers the monitor with an override-redirect window, which needs no window manager.
/// Picture-in-picture is a small override-redirect window kept on top, which Podium itself lets
/// the presenter drag (left button) and resize (drag its bottom-right corner).
/// Pictures go through MIT-SHM when the server shares memory, else plain `PutImage`.
/// Not thread-safe: confine to the window thread, which owns the connection.
public final class WindowPresenter {
    /// How the window sits on its monitor.
    public enum Mode: Hashable, Sendable {
        case fullscreen
        /// A normal managed window, half the monitor's size, whose title shows the live rate.
        case windowed
        /// A small window at this rectangle, on top of everything.
        case pictureInPicture(PixelRect)
    }

    /// What happened since the last look.
    public enum Event: Equatable, Sendable {
        case exposed
        case resized(PixelSize)
        case key(String)
        /// The window manager's close button.
        case closeRequested
        /// The display's monitors or screen size changed.
        case layoutChanged
        /// The display went away.
        case closed
    }

    public private(set) var size: PixelSize
    /// The window's rectangle on the screen.
    public private(set) var frame: PixelRect
    public let connection: XConnection
    public private(set) var isFullscreen: Bool
    private let window: xcb_window_t
    private let context: xcb_gcontext_t
    private let monitor: PixelRect
    /// What `f` returns to from fullscreen.
    private let smallMode: Mode
    private let atoms: Atoms
    private let managed: Bool
    private let maximumRequestBytes: Int
    private let layoutEvents: UInt8?
    /// The first keysym of each keycode, to name the keys pressed.
    private let keysyms: [UInt8: UInt32]
    private var canvas: Canvas?
    /// A picture-in-picture drag in progress.
    private var drag: Drag?

    /// Creates and shows the window.
    ///
    /// The corresponding C functions are `xcb_create_window` and `xcb_map_window`.
    /// - Parameters:
    ///   - monitor: the monitor's rectangle on the target screen.
    ///   - background: the colour of the bars around the picture.
    public init(connection: XConnection, monitor: PixelRect, mode: Mode, title: String,
                background: RGBColor) throws(PodiumError) {
        try connection.requireBGRAPixels()
        self.connection = connection
        self.monitor = monitor
        smallMode = mode == .fullscreen ? .windowed : mode
        isFullscreen = mode == .fullscreen
        atoms = Atoms(connection)
        // A managed window only where a window manager will manage it; picture-in-picture never.
        managed = mode == .windowed
            || (mode == .fullscreen && connection.hasWindowManager(checkAtom: atoms.supportingCheck))
        frame = Self.frame(of: mode, on: monitor)
        size = frame.size
        window = connection.generateID()
        context = connection.generateID()
        let events = XCB_EVENT_MASK_EXPOSURE.rawValue | XCB_EVENT_MASK_KEY_PRESS.rawValue
            | XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue | XCB_EVENT_MASK_BUTTON_PRESS.rawValue
            | XCB_EVENT_MASK_BUTTON_RELEASE.rawValue | XCB_EVENT_MASK_BUTTON_1_MOTION.rawValue
            | XCB_EVENT_MASK_VISIBILITY_CHANGE.rawValue
        // Values in the order of their mask bits: background pixel, override-redirect, event mask.
        let values: [UInt32] = [background.pixel, managed ? 0 : 1, events]
        let mask = XCB_CW_BACK_PIXEL.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue | XCB_CW_EVENT_MASK.rawValue
        do {
            try connection.check(xcb_create_window_checked(
                connection.raw, UInt8(XCB_COPY_FROM_PARENT), window, connection.root, Int16(frame.x), Int16(frame.y),
                UInt16(frame.width), UInt16(frame.height), 0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue),
                connection.screen.root_visual, mask, values
            ))
        } catch {
            throw .unavailable("cannot create a window on \(connection.displayName): \(error)")
        }
        xcb_create_gc(connection.raw, context, window, XCB_GC_FOREGROUND.rawValue, [background.pixel])
        // With BIG-REQUESTS this is megabytes; without it 256 KiB, and pictures go in strips.
        maximumRequestBytes = Int(xcb_get_maximum_request_length(connection.raw)) * 4
        keysyms = connection.keyboardMapping()
        layoutEvents = connection.watchLayout()
        setTitle(title)
        setIdentity()
        if managed {
            setProperty(atoms.protocols, type: XCB_ATOM_ATOM.rawValue, [atoms.deleteWindow])
            if isFullscreen { setProperty(atoms.state, type: XCB_ATOM_ATOM.rawValue, [atoms.fullscreen]) }
        }
        xcb_map_window(connection.raw, window)
        connection.flush()
    }

    deinit {
        canvas = nil
        xcb_destroy_window(connection.raw, window)
        xcb_free_gc(connection.raw, context)
        connection.flush()
    }

    /// Names the window (the title bar of a windowed one, and its icon or task-bar entry).
    ///
    /// EWMH window managers read `_NET_WM_NAME` as UTF-8; older ones, and tools such as `xprop`,
    /// read ICCCM's `WM_NAME`, whose `STRING` type is Latin-1, so raw UTF-8 there shows as
    /// mojibake ("Â·" for "·").
    public func setTitle(_ title: String) {
        let latin1 = Self.latin1(title)
        setProperty(XCB_ATOM_WM_NAME.rawValue, type: XCB_ATOM_STRING.rawValue, latin1)
        setProperty(XCB_ATOM_WM_ICON_NAME.rawValue, type: XCB_ATOM_STRING.rawValue, latin1)
        if atoms.utf8 != 0 {
            let utf8 = Array(title.utf8)
            if atoms.name != 0 { setProperty(atoms.name, type: atoms.utf8, utf8) }
            if atoms.iconName != 0 { setProperty(atoms.iconName, type: atoms.utf8, utf8) }
        }
        connection.flush()
    }

    /// `text` as ICCCM's `STRING`: Latin-1, with `?` for a character Latin-1 lacks, and for a
    /// control character other than tab and newline, which `STRING` does not allow.
    static func latin1(_ text: String) -> [UInt8] {
        text.unicodeScalars.map { scalar in
            switch scalar.value {
            case 0x09, 0x0A, 0x20...0x7E, 0xA0...0xFF: UInt8(scalar.value)
            default: UInt8(ascii: "?")
            }
        }
    }

    /// Says which program the window belongs to, so window managers, task bars and tools such as
    /// `xdotool search --class podium` can find it: `WM_CLASS` (instance, then class), and
    /// `_NET_WM_PID` with the `WM_CLIENT_MACHINE` that EWMH requires beside it (a pid means
    /// nothing without its host).
    private func setIdentity() {
        setProperty(XCB_ATOM_WM_CLASS.rawValue, type: XCB_ATOM_STRING.rawValue, Array("podium\0Podium\0".utf8))
        if atoms.pid != 0 { setProperty(atoms.pid, type: XCB_ATOM_CARDINAL.rawValue, [UInt32(getpid())]) }
        if let host = hostName {
            setProperty(XCB_ATOM_WM_CLIENT_MACHINE.rawValue, type: XCB_ATOM_STRING.rawValue, Self.latin1(host))
        }
    }

    /// Switches between covering the monitor and the window's small form (windowed or picture-in-picture).
    public func toggleFullscreen() {
        isFullscreen.toggle()
        let target = Self.frame(of: isFullscreen ? .fullscreen : smallMode, on: monitor)
        if managed {
            // The window manager owns the state: ask it, with _NET_WM_STATE's "toggle" action.
            var message = xcb_client_message_event_t()
            message.response_type = UInt8(XCB_CLIENT_MESSAGE)
            message.format = 32
            message.window = window
            message.type = atoms.state
            message.data.data32 = (2, atoms.fullscreen, 0, 1, 0)
            let mask = XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT.rawValue | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue
            withUnsafeBytes(of: &message) { bytes in
                _ = xcb_send_event(connection.raw, 0, connection.root, mask,
                                   bytes.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
        } else {
            move(to: target)
        }
        connection.flush()
    }

    /// The window's rectangle for a mode.
    static func frame(of mode: Mode, on monitor: PixelRect) -> PixelRect {
        switch mode {
        case .fullscreen: monitor
        case .windowed: PixelRect(x: monitor.x + monitor.width / 4, y: monitor.y + monitor.height / 4,
                                  width: monitor.width / 2, height: monitor.height / 2)
        case .pictureInPicture(let rect): rect
        }
    }

    /// Moves and resizes an unmanaged window, and keeps it on top.
    private func move(to target: PixelRect) {
        let mask = XCB_CONFIG_WINDOW_X.rawValue | XCB_CONFIG_WINDOW_Y.rawValue | XCB_CONFIG_WINDOW_WIDTH.rawValue
            | XCB_CONFIG_WINDOW_HEIGHT.rawValue | XCB_CONFIG_WINDOW_STACK_MODE.rawValue
        let values = [UInt32(bitPattern: Int32(target.x)), UInt32(bitPattern: Int32(target.y)),
                      UInt32(target.width), UInt32(target.height), XCB_STACK_MODE_ABOVE.rawValue]
        xcb_configure_window(connection.raw, window, UInt16(mask), values)
        frame = target
    }

    /// The memory the next picture of `size` goes in (rows of `size.width * 4` bytes), shared with
    /// the server when it can be; valid until the next call.
    public func canvas(for size: PixelSize) -> UnsafeMutableRawPointer {
        let bytes = size.area * 4
        if canvas == nil || canvas!.capacity < bytes {
            canvas = nil
            canvas = Canvas(connection: connection, capacity: bytes)
        }
        canvas!.waitUntilFree()
        return canvas!.bytes
    }

    /// Draws the picture in the canvas at `destination`, and the background around it; or, given
    /// `rows` (of the picture), only those rows: the window shows the rest already.
    ///
    /// The corresponding C functions are `xcb_poly_fill_rectangle`, `xcb_shm_put_image` and `xcb_put_image`.
    public func present(at destination: PixelRect, rows: RowBands? = nil) {
        guard let canvas else { return }
        guard let rows else {
            drawBars(around: destination)
            put(canvas, rows: 0..<destination.height, at: destination)
            return connection.flush()
        }
        for index in 0..<rows.count {
            let band = rows[index].clamped(to: 0..<destination.height)
            if !band.isEmpty { put(canvas, rows: band, at: destination) }
        }
        connection.flush()
    }

    /// Up to four bars around the picture, on the stack: the hot path allocates nothing.
    private func drawBars(around destination: PixelRect) {
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
    }

    /// Puts `rows` of the canvas's picture (of `destination`'s size) at their place in `destination`.
    private func put(_ canvas: Canvas, rows: Range<Int>, at destination: PixelRect) {
        let depth = connection.screen.root_depth
        let format = UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue)
        let width = UInt16(destination.width)
        if let segment = canvas.segment {
            xcb_shm_put_image(connection.raw, window, context, width, UInt16(destination.height), 0,
                              UInt16(rows.lowerBound), width, UInt16(rows.count), Int16(destination.x),
                              Int16(destination.y + rows.lowerBound), depth, format, 0, segment.id, 0)
            canvas.markInUse()
            return
        }
        let rowBytes = destination.width * 4
        let rowsPerRequest = max(1, (maximumRequestBytes - 64) / rowBytes)
        var row = rows.lowerBound
        while row < rows.upperBound {
            let count = min(rowsPerRequest, rows.upperBound - row)
            xcb_put_image(connection.raw, format, window, context, width, UInt16(count), Int16(destination.x),
                          Int16(destination.y + row), 0, depth, UInt32(count * rowBytes),
                          (canvas.bytes + row * rowBytes).assumingMemoryBound(to: UInt8.self))
            row += count
        }
    }

    /// Whether pictures travel through shared memory.
    public var usesSharedMemory: Bool { canvas?.segment != nil }

    /// The keys Podium answers to, by their X keysym. A key's first keysym is its unshifted one:
    /// `=`, `,`, `.` and `/` stand for the `+`, `<`, `>` and `?` they carry shifted.
    static let keyNames: [UInt32: String] = [
        0x20: "space", 0x66: "f", 0x71: "q", 0xFF1B: "Escape", 0x6C: "l", 0x78: "x", 0x5B: "[", 0x5D: "]",
        0x3F: "?", 0x2F: "?", 0x2B: "+", 0x3D: "=", 0xFFAB: "+", 0x2D: "-", 0xFFAD: "-", 0x3C: "<", 0x2C: "<",
        0x3E: ">", 0x2E: ">", 0x6B: "k", 0x62: "b", 0x77: "w",
        0x68: "h", 0x7A: "z", 0x72: "r",
    ]

    /// The events that arrived since the last call; never blocks. Picture-in-picture drags are
    /// handled here and show up as `.resized`.
    public func pendingEvents() -> [Event] {
        var events: [Event] = []
        while let event = xcb_poll_for_event(connection.raw) {
            defer { free(event) }
            let raw = UnsafeRawPointer(event)
            let type = event.pointee.response_type & 0x7F
            switch Int32(type) {
            case XCB_EXPOSE:
                events.append(.exposed)
            case XCB_CONFIGURE_NOTIFY:
                let configure = raw.assumingMemoryBound(to: xcb_configure_notify_event_t.self).pointee
                guard configure.window == window else { break }
                let newSize = PixelSize(width: Int(configure.width), height: Int(configure.height))
                if !managed { frame = PixelRect(x: Int(configure.x), y: Int(configure.y), size: newSize) }
                if newSize != size {
                    size = newSize
                    events.append(.resized(newSize))
                }
            case XCB_KEY_PRESS:
                let press = raw.assumingMemoryBound(to: xcb_key_press_event_t.self).pointee
                if let key = Self.keyNames[keysyms[press.detail] ?? 0] { events.append(.key(key)) }
            case XCB_BUTTON_PRESS, XCB_BUTTON_RELEASE, XCB_MOTION_NOTIFY:
                // Press, release and motion events share one layout.
                handlePointer(raw.assumingMemoryBound(to: xcb_button_press_event_t.self).pointee, type: Int32(type))
            case XCB_VISIBILITY_NOTIFY where !managed && !isFullscreen:
                // Something covered the picture-in-picture window: back on top.
                guard raw.assumingMemoryBound(to: xcb_visibility_notify_event_t.self).pointee.state
                    != UInt8(XCB_VISIBILITY_UNOBSCURED.rawValue) else { break }
                xcb_configure_window(connection.raw, window, UInt16(XCB_CONFIG_WINDOW_STACK_MODE.rawValue),
                                     [XCB_STACK_MODE_ABOVE.rawValue])
                connection.flush()
            case XCB_CLIENT_MESSAGE:
                let message = raw.assumingMemoryBound(to: xcb_client_message_event_t.self).pointee
                if message.type == atoms.protocols && message.data.data32.0 == atoms.deleteWindow {
                    events.append(.closeRequested)
                }
            case XCB_DESTROY_NOTIFY:
                events.append(.closed)
            default:
                if let base = layoutEvents,
                   type == base + UInt8(XCB_RANDR_SCREEN_CHANGE_NOTIFY) || type == base + UInt8(XCB_RANDR_NOTIFY) {
                    if events.last != .layoutChanged { events.append(.layoutChanged) }
                }
            }
        }
        if connection.isBroken { events.append(.closed) }
        return events
    }

    /// Drags and resizes a picture-in-picture window with the left button; a press within
    /// `cornerGrip` pixels of the bottom-right corner resizes.
    private func handlePointer(_ event: xcb_button_press_event_t, type: Int32) {
        guard case .pictureInPicture = smallMode, !isFullscreen else { return }
        let pointer = (x: Int(event.root_x), y: Int(event.root_y))
        switch type {
        case XCB_BUTTON_PRESS where event.detail == 1:
            let cornerGrip = max(12, min(frame.width, frame.height) / 6)
            let resizing = Int(event.event_x) >= frame.width - cornerGrip
                && Int(event.event_y) >= frame.height - cornerGrip
            drag = Drag(start: pointer, frame: frame, resizing: resizing)
        case XCB_MOTION_NOTIFY:
            guard let drag else { return }
            let (dx, dy) = (pointer.x - drag.start.x, pointer.y - drag.start.y)
            var target = drag.frame
            if drag.resizing {
                let bounds = PixelSize(width: monitor.maxX - target.x, height: monitor.maxY - target.y)
                target.size = PictureInPicture.clamped(width: drag.frame.width + dx, aspect: drag.frame.size,
                                                       within: bounds)
            } else {
                target.x = min(max(drag.frame.x + dx, monitor.x), monitor.maxX - target.width)
                target.y = min(max(drag.frame.y + dy, monitor.y), monitor.maxY - target.height)
            }
            move(to: target)
            connection.flush()
        case XCB_BUTTON_RELEASE where event.detail == 1:
            drag = nil
        default:
            break
        }
    }

    private func setProperty<Element>(_ property: xcb_atom_t, type: xcb_atom_t, _ values: [Element]) {
        values.withUnsafeBytes { bytes in
            _ = xcb_change_property(connection.raw, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, property, type,
                                    UInt8(MemoryLayout<Element>.size * 8), UInt32(values.count), bytes.baseAddress)
        }
    }

    private struct Drag {
        var start: (x: Int, y: Int)
        var frame: PixelRect
        var resizing: Bool
    }

    /// The EWMH and ICCCM atoms the window uses.
    private struct Atoms {
        let supportingCheck, state, fullscreen, name, iconName, utf8, pid, protocols, deleteWindow: xcb_atom_t

        init(_ connection: XConnection) {
            let found = connection.atoms([
                "_NET_SUPPORTING_WM_CHECK", "_NET_WM_STATE", "_NET_WM_STATE_FULLSCREEN", "_NET_WM_NAME",
                "_NET_WM_ICON_NAME", "UTF8_STRING", "_NET_WM_PID", "WM_PROTOCOLS", "WM_DELETE_WINDOW",
            ])
            (supportingCheck, state, fullscreen, name, iconName) = (found[0], found[1], found[2], found[3], found[4])
            (utf8, pid, protocols, deleteWindow) = (found[5], found[6], found[7], found[8])
        }
    }
}

/// The memory a picture is written to before it is shown: a shared segment the server reads
/// directly, or plain memory sent with `PutImage` when the server cannot share.
private final class Canvas {
    let segment: SharedMemorySegment?
    let bytes: UnsafeMutableRawPointer
    let capacity: Int
    private let heap: HeapStorage?
    private let connection: XConnection
    /// A request sent after the last put; its reply means the server has read the segment.
    private var pending: xcb_get_input_focus_cookie_t?

    init(connection: XConnection, capacity: Int) {
        self.connection = connection
        self.capacity = capacity
        segment = connection.hasExtension(cxcb_shm_id())
            ? SharedMemorySegment(connection: connection, size: capacity) : nil
        heap = segment == nil ? HeapStorage(capacity: capacity) : nil
        bytes = segment?.bytes ?? heap!.bytes
    }

    /// Requests are handled in order, so a reply to one sent after the put proves it done.
    func markInUse() {
        pending = xcb_get_input_focus(connection.raw)
    }

    /// Waits until the server has finished reading the last picture put from the segment.
    func waitUntilFree() {
        guard let cookie = pending else { return }
        pending = nil
        free(xcb_get_input_focus_reply(connection.raw, cookie, nil))
    }

    deinit { waitUntilFree() }
}
