import CXCB
public import PodiumCore
#if canImport(Glibc)
import Glibc
#endif

/// Draws a scene's frames on a display, cheaply: its pictures are drawn once into a shared memory
/// segment, and each frame is a few MIT-SHM puts from it plus the frame's stamp in the corner.
///
/// The scene covers the screen with an override-redirect window, so no window manager moves it.
/// Not thread-safe: confine to one thread.
public final class ScenePlayer {
    public let kind: SceneKind
    public let screen: PixelSize
    private let connection: XConnection
    private let window: xcb_window_t
    private let context: xcb_gcontext_t
    private let segment: SharedMemorySegment
    /// The pictures at the start of the segment (the video texture, or the slides one after another).
    private let pictureSize: PixelSize
    /// Where the stamp's pixels sit in the segment, after the pictures.
    private let stripOffset: Int
    /// Everything must be drawn again: the first frame, or the window was exposed.
    private var stale = true
    private var shownSlide = -1
    private var objectRect: PixelRect?

    /// Opens the window and draws the scene's pictures into shared memory.
    ///
    /// - Throws: `.unavailable` when the display cannot share memory or hold 32-bit pixels.
    public init(connection: XConnection, kind: SceneKind) throws(PodiumError) {
        try connection.requireBGRAPixels()
        guard connection.hasExtension(cxcb_shm_id()) else {
            throw .unavailable("\(connection.displayName) has no MIT-SHM; a scene needs it to draw cheaply")
        }
        self.connection = connection
        self.kind = kind
        screen = connection.screenSize
        pictureSize = kind == .video ? SceneArt.textureSize(for: screen) : screen
        let pictures = kind == .slides ? SceneArt.slideCount : kind == .clapper ? 2 : 1
        stripOffset = pictures * pictureSize.area * 4
        guard let segment = SharedMemorySegment(connection: connection,
                                                size: stripOffset + SceneStrip.size.area * 4) else {
            throw .unavailable("cannot share memory with \(connection.displayName) (is it on another machine?)")
        }
        self.segment = segment
        switch kind {
        case .video:
            SceneArt.drawTexture(into: segment.bytes, size: pictureSize)
        case .clapper:
            // Dark grey, then white.
            memset(segment.bytes, 0x20, pictureSize.area * 4)
            memset(segment.bytes + pictureSize.area * 4, 0xFF, pictureSize.area * 4)
        case .slides, .static, .repainted, .caret, .animated:
            for index in 0..<pictures {
                SceneArt.drawSlide(index, into: segment.bytes + index * pictureSize.area * 4, size: pictureSize)
            }
        }
        window = connection.generateID()
        context = connection.generateID()
        // Override-redirect, and exposure events to know when to draw everything again.
        let values: [UInt32] = [1, XCB_EVENT_MASK_EXPOSURE.rawValue]
        do {
            try connection.check(xcb_create_window_checked(
                connection.raw, UInt8(XCB_COPY_FROM_PARENT), window, connection.root, 0, 0,
                UInt16(screen.width), UInt16(screen.height), 0,
                UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), connection.screen.root_visual,
                XCB_CW_OVERRIDE_REDIRECT.rawValue | XCB_CW_EVENT_MASK.rawValue, values
            ))
        } catch {
            throw .unavailable("cannot create a window on \(connection.displayName): \(error)")
        }
        xcb_create_gc(connection.raw, context, window, XCB_GC_FOREGROUND.rawValue, [SceneArt.objectColor])
        xcb_map_window(connection.raw, window)
        connection.sync()
    }

    deinit {
        xcb_destroy_window(connection.raw, window)
        xcb_free_gc(connection.raw, context)
        connection.flush()
    }

    /// Whether the scene still has a display to draw on; notes exposures, which redraw everything.
    public func handleEvents() -> Bool {
        while let event = xcb_poll_for_event(connection.raw) {
            if event.pointee.response_type & 0x7F == XCB_EXPOSE { stale = true }
            free(event)
        }
        return !connection.isBroken
    }

    /// Draws frame `sequence`, `elapsed` nanoseconds into the scene, stamped with `stamp`, and
    /// returns once the server has drawn it. A static scene draws only when it must.
    /// - Returns: whether anything was drawn.
    @discardableResult
    public func draw(sequence: UInt64, elapsed: UInt64, stamp: SceneStamp) -> Bool {
        // A frame is presented whole, as a compositor presents one: while the server is grabbed no
        // other client's request (a capture's grab) runs between its picture and its stamp.
        xcb_grab_server(connection.raw)
        let drawn = paint(sequence: sequence, elapsed: elapsed, stamp: stamp)
        xcb_ungrab_server(connection.raw)
        // The stamp's memory is written again next frame: the server must be done reading it. With
        // nothing drawn (a still scene), the two requests wait in the buffer: no round trip a slot.
        if drawn { connection.sync() }
        return drawn
    }

    /// Sends the requests that draw frame `sequence`; `draw` brackets them and waits for the server.
    private func paint(sequence: UInt64, elapsed: UInt64, stamp: SceneStamp) -> Bool {
        switch kind {
        case .video:
            let offset = SceneArt.textureOffset(frame: sequence)
            put(from: 0, source: PixelRect(x: offset.x, y: offset.y, size: screen), at: (0, 0))
        case .slides:
            let slide = SceneArt.slide(at: elapsed)
            let base = slide * pictureSize.area * 4
            if stale || slide != shownSlide {
                put(from: base, source: PixelRect(x: 0, y: 0, size: screen), at: (0, 0))
            } else if let objectRect {
                // Only the slide under where the object was.
                put(from: base, source: objectRect, at: (objectRect.x, objectRect.y))
            }
            shownSlide = slide
            let rect = SceneArt.objectRect(at: elapsed, on: screen)
            fill(rect)
            objectRect = rect
        case .animated:
            put(from: 0, source: PixelRect(x: 0, y: 0, size: screen), at: (0, 0))
            fill(SceneArt.objectRect(at: elapsed, on: screen))
        case .static:
            guard stale else { return false }
            put(from: 0, source: PixelRect(x: 0, y: 0, size: screen), at: (0, 0))
        case .clapper:
            let flash = SceneKind.flashes(at: elapsed) ? 1 : 0
            guard stale || flash != shownSlide else { return false }
            put(from: flash * pictureSize.area * 4, source: PixelRect(x: 0, y: 0, size: screen), at: (0, 0))
            shownSlide = flash
            stale = false
            // No stamp: the flash must be the whole picture.
            return true
        case .repainted, .caret:
            put(from: 0, source: PixelRect(x: 0, y: 0, size: screen), at: (0, 0))
            if kind == .caret && SceneArt.caretShown(at: elapsed) {
                fill(SceneArt.caretRect(on: screen))
            }
            // No stamp: a stamp would change pixels each frame, and these scenes must not.
            return true
        }
        stale = false
        SceneStrip.draw(stamp, into: segment.bytes + stripOffset, rowBytes: SceneStrip.size.width * 4)
        put(from: stripOffset, source: PixelRect(x: 0, y: 0, size: SceneStrip.size), at: (0, 0),
            pictureSize: SceneStrip.size)
        return true
    }

    /// Fills `rect` with the drawing colour (the moving object, the caret).
    ///
    /// The corresponding C function is `xcb_poly_fill_rectangle`.
    private func fill(_ rect: PixelRect) {
        var box = xcb_rectangle_t(x: Int16(rect.x), y: Int16(rect.y), width: UInt16(rect.width),
                                  height: UInt16(rect.height))
        xcb_poly_fill_rectangle(connection.raw, window, context, 1, &box)
    }

    /// Puts `source` of the picture at byte `offset` of the segment at `point` in the window.
    ///
    /// The corresponding C function is `xcb_shm_put_image`.
    private func put(from offset: Int, source: PixelRect, at point: (x: Int, y: Int), pictureSize: PixelSize? = nil) {
        let total = pictureSize ?? self.pictureSize
        xcb_shm_put_image(connection.raw, window, context, UInt16(total.width), UInt16(total.height),
                          UInt16(source.x), UInt16(source.y), UInt16(source.width), UInt16(source.height),
                          Int16(point.x), Int16(point.y), connection.screen.root_depth,
                          UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), 0, segment.id, UInt32(offset))
    }
}
