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
    /// XFixes gives it premultiplied, as a BGRA frame lays its pixels out.
    private var image: CursorImage?

    /// - Returns: `nil` when the server lacks XFixes (frames are then captured without a cursor).
    public init?(connection: XConnection) {
        guard connection.hasExtension(cxcb_xfixes_id()) else { return nil }
        // XFixes requires the version handshake before any other request.
        guard (try? connection.withReply({
            xcb_xfixes_query_version_reply($0, xcb_xfixes_query_version($0, 4, 0), $1)
        }) { _ in }) != nil else {
            return nil
        }
        self.connection = connection
        cursorNotifyEvent = connection.firstEvent(of: cxcb_xfixes_id()) + UInt8(XCB_XFIXES_CURSOR_NOTIFY)
        xcb_xfixes_select_cursor_input(connection.raw, connection.root,
                                       UInt32(XCB_XFIXES_CURSOR_NOTIFY_MASK_DISPLAY_CURSOR.rawValue))
        connection.flush()
    }

    /// Blends the cursor into `frame`, which shows `region` of the window the position is
    /// relative to.
    /// - Returns: the frame's rows it drew on (they no longer match the screen).
    @discardableResult
    func draw(into frame: CapturedFrame, region: PixelRect, at pointer: PointerWatch.Position?) -> Range<Int>? {
        guard let picture = bounds(in: region, at: pointer) else { return nil }
        return image?.draw(into: frame, x: picture.x, y: picture.y, within: PixelRect(x: 0, y: 0, size: region.size))
    }

    /// Where the cursor's picture goes in a frame showing `region`, whole (the frame shows only
    /// the part inside it); `nil` when there is none to draw. Reads the picture again if it changed.
    func bounds(in region: PixelRect, at pointer: PointerWatch.Position?) -> PixelRect? {
        refreshImageIfChanged()
        guard let pointer, pointer.onScreen, let image else { return nil }
        return PixelRect(x: pointer.x - image.hotspotX - region.x, y: pointer.y - image.hotspotY - region.y,
                         size: image.size)
    }

    /// The cursor's picture now, read again if it changed.
    var picture: CursorImage? {
        refreshImageIfChanged()
        return image
    }

    /// Re-reads the cursor picture if XFixes reported a change.
    private func refreshImageIfChanged() {
        guard stale else { return }
        stale = false
        image = try? connection.withReply({
            xcb_xfixes_get_cursor_image_reply($0, xcb_xfixes_get_cursor_image($0), $1)
        }) { reply in
            let count = Int(xcb_xfixes_get_cursor_image_cursor_image_length(reply))
            let data = UnsafeBufferPointer(start: xcb_xfixes_get_cursor_image_cursor_image(reply), count: count)
            return CursorImage(pixels: Array(data),
                               size: PixelSize(width: Int(reply.pointee.width), height: Int(reply.pointee.height)),
                               hotspotX: Int(reply.pointee.xhot), hotspotY: Int(reply.pointee.yhot))
        }
    }
}
