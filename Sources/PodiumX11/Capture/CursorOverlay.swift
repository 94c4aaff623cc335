import CXCB
import PodiumCore

/// Draws the pointer into captured frames: X leaves the cursor out of screen grabs.
///
/// The cursor's picture is read through XFixes only when the server says it changed; its
/// position is asked for with each frame (`PointerWatch`), in the same round trip as the grab.
/// Not thread-safe: confine to the capture thread.
public final class CursorOverlay {
    private let connection: XConnection
    /// The XFixes event that says the cursor's picture changed.
    let cursorNotifyEvent: UInt8
    /// Set when the picture must be read again before the next draw.
    var stale = true
    /// Premultiplied ARGB, one `UInt32` a pixel, the layout of a BGRA frame in memory.
    private var pixels: [UInt32] = []
    private var size = PixelSize(width: 0, height: 0)
    private var hotspot = (x: 0, y: 0)

    /// - Returns: `nil` when the server lacks XFixes (frames are then captured without a cursor).
    public init?(connection: XConnection) {
        guard connection.hasExtension(cxcb_xfixes_id()) else { return nil }
        // XFixes requires the version handshake before any other request.
        guard (try? connection.withReply({ xcb_xfixes_query_version_reply($0, xcb_xfixes_query_version($0, 4, 0), $1) }) { _ in }) != nil else {
            return nil
        }
        self.connection = connection
        cursorNotifyEvent = connection.firstEvent(of: cxcb_xfixes_id()) + UInt8(XCB_XFIXES_CURSOR_NOTIFY)
        xcb_xfixes_select_cursor_input(connection.raw, connection.root, UInt32(XCB_XFIXES_CURSOR_NOTIFY_MASK_DISPLAY_CURSOR.rawValue))
        connection.flush()
    }

    /// Blends the cursor into `frame`, which shows `region` of the window the position is
    /// relative to.
    /// - Returns: the frame's rows it drew on (they no longer match the screen).
    @discardableResult
    func draw(into frame: CapturedFrame, region: PixelRect, at pointer: PointerWatch.Position?) -> Range<Int>? {
        guard let picture = bounds(in: region, at: pointer) else { return nil }
        let frameRect = PixelRect(x: 0, y: 0, width: min(region.width, frame.size.width),
                                  height: min(region.height, frame.size.height))
        guard let visible = picture.intersection(frameRect) else { return nil }
        pixels.withUnsafeBufferPointer { source in
            for y in visible.y..<visible.maxY {
                let line = (frame.buffer.bytes + y * frame.bytesPerRow).assumingMemoryBound(to: UInt32.self)
                let sourceRow = (y - picture.y) * size.width - picture.x
                for x in visible.x..<visible.maxX {
                    line[x] = PixelBlend.over(source[sourceRow + x], line[x])
                }
            }
        }
        return visible.y..<visible.maxY
    }

    /// Where the cursor's picture goes in a frame showing `region`, whole (the frame shows only
    /// the part inside it); `nil` when there is none to draw. Reads the picture again if it changed.
    func bounds(in region: PixelRect, at pointer: PointerWatch.Position?) -> PixelRect? {
        refreshImageIfChanged()
        guard let pointer, pointer.onScreen, !pixels.isEmpty else { return nil }
        return PixelRect(x: pointer.x - hotspot.x - region.x, y: pointer.y - hotspot.y - region.y, size: size)
    }

    /// Re-reads the cursor picture if XFixes reported a change.
    private func refreshImageIfChanged() {
        guard stale else { return }
        stale = false
        let image = try? connection.withReply({ xcb_xfixes_get_cursor_image_reply($0, xcb_xfixes_get_cursor_image($0), $1) }) { reply in
            let count = Int(xcb_xfixes_get_cursor_image_cursor_image_length(reply))
            let data = UnsafeBufferPointer(start: xcb_xfixes_get_cursor_image_cursor_image(reply), count: count)
            return (
                pixels: Array(data),
                size: PixelSize(width: Int(reply.pointee.width), height: Int(reply.pointee.height)),
                hotspot: (x: Int(reply.pointee.xhot), y: Int(reply.pointee.yhot))
            )
        }
        guard let image, image.pixels.count >= image.size.area else {
            pixels = []
            return
        }
        (pixels, size, hotspot) = image
    }
}
