import CXCB
public import PodiumCore
public import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Copies one rectangle of a drawable into pooled frame buffers, through MIT-SHM when the server
/// offers it (the server writes straight into our memory) or with plain `GetImage`: of the root
/// window for a screen, of a window's own pixmap (named through Composite) for a window.
///
/// Not thread-safe: confine to the capture thread.
public final class ScreenGrabber {
    /// How pixels travel from the server.
    public enum Method: String, Sendable {
        case sharedMemory = "MIT-SHM"
        case getImage = "GetImage"
    }

    public let method: Method
    /// The captured rectangle, in the drawable's coordinates; it may move, keeping its size.
    public let region: PixelRect
    /// What is read: the root window, or a window's pixmap.
    let drawable: xcb_drawable_t
    /// The buffers frames are captured into; capture skips a slot when none is free.
    public let pool: FrameBufferPool
    public var bytesPerRow: Int { region.width * 4 }
    private let connection: XConnection
    /// The X segment behind each pool buffer, by `FrameBuffer.index`; empty for `GetImage`.
    private let segments: [xcb_shm_seg_t]

    /// Grabs a rectangle of the root window.
    /// - Parameters:
    ///   - region: must lie inside the screen (checked by the caller, with the flag's name).
    ///   - allowSharedMemory: `false` forces `GetImage` (`--no-shm`).
    ///   - bufferCount: frames that can be in flight at once: one being grabbed, the rest downstream.
    public convenience init(connection: XConnection, region: PixelRect, allowSharedMemory: Bool, bufferCount: Int = 4,
                            logger: Logger) {
        self.init(connection: connection, drawable: nil, region: region, allowSharedMemory: allowSharedMemory,
                  bufferCount: bufferCount, logger: logger)
    }

    /// - Parameters:
    ///   - drawable: the root window (`nil`), or a pixmap of the region's size or larger.
    ///   - region: must lie inside the drawable.
    init(connection: XConnection, drawable: xcb_drawable_t?, region: PixelRect, allowSharedMemory: Bool,
         bufferCount: Int, logger: Logger) {
        self.connection = connection
        self.drawable = drawable ?? connection.root
        self.region = region
        let size = region.width * region.height * 4
        var buffers: [FrameBuffer] = []
        var segments: [xcb_shm_seg_t] = []
        if allowSharedMemory {
            if connection.hasExtension(cxcb_shm_id()) {
                for index in 0..<bufferCount {
                    guard let segment = SharedMemorySegment(connection: connection, size: size) else { break }
                    buffers.append(FrameBuffer(bytes: segment.bytes, capacity: size, index: index, storage: segment))
                    segments.append(segment.id)
                }
                if buffers.count < bufferCount {
                    logger.notice("MIT-SHM segments could not be shared with the X server; capturing with GetImage")
                    buffers = []
                    segments = []
                }
            } else {
                logger.notice("the X server has no MIT-SHM extension; capturing with GetImage")
            }
        }
        if buffers.isEmpty {
            for index in 0..<bufferCount {
                let storage = HeapStorage(capacity: size)
                buffers.append(FrameBuffer(bytes: storage.bytes, capacity: size, index: index, storage: storage))
            }
        }
        self.method = segments.isEmpty ? .getImage : .sharedMemory
        self.segments = segments
        self.pool = FrameBufferPool(buffers)
    }

    /// Fills `rows` of `buffer` (all of them by default) with the region's current pixels,
    /// `bytesPerRow` bytes a row; the other rows are left as they are. Every band is asked for
    /// before the first answer is awaited: one round trip however many bands.
    ///
    /// The corresponding C functions are `xcb_shm_get_image` and `xcb_get_image`.
    /// - Throws: when the server refuses or the connection broke.
    public func grab(into buffer: FrameBuffer, rows: RowBands? = nil) throws(X11RequestError) {
        let rows = rows ?? RowBands(0..<region.height)
        let format = UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue)
        let root = drawable
        let (x, width) = (Int16(region.x), UInt16(region.width))
        switch method {
        case .sharedMemory:
            let segment = segments[buffer.index]
            var cookies = InlineArray<4, xcb_shm_get_image_cookie_t>(repeating: xcb_shm_get_image_cookie_t())
            for index in 0..<rows.count {
                let band = rows[index]
                cookies[index] = xcb_shm_get_image(connection.raw, root, x, Int16(region.y + band.lowerBound), width,
                                                   UInt16(band.count), ~0, format, segment,
                                                   UInt32(band.lowerBound * bytesPerRow))
            }
            var failure: X11RequestError?
            for index in 0..<rows.count {
                do {
                    try connection.withReply({ connection, error in
                        xcb_shm_get_image_reply(connection, cookies[index], error)
                    }) { _ in }
                } catch {
                    failure = failure ?? error
                }
            }
            if let failure { throw failure }
        case .getImage:
            for index in 0..<rows.count {
                let band = rows[index]
                let offset = band.lowerBound * bytesPerRow
                try connection.withReply({
                    xcb_get_image_reply($0, xcb_get_image($0, format, root, x, Int16(region.y + band.lowerBound),
                                                          width, UInt16(band.count), ~0), $1)
                }) { reply in
                    let length = min(Int(xcb_get_image_data_length(reply)), buffer.capacity - offset)
                    memcpy(buffer.bytes + offset, xcb_get_image_data(reply), length)
                }
            }
        }
    }
}
