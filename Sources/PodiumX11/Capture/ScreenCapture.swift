public import PodiumCore
public import Logging

/// Takes frames of one screen region: the grab, then the cursor drawn in.
///
/// Not thread-safe: confine to the capture thread, which owns the connection.
public final class ScreenCapture: @unchecked Sendable {
    public let grabber: ScreenGrabber
    private let cursor: CursorOverlay?
    private let connection: XConnection

    /// - Parameter drawCursor: `--cursor`; ignored (with a notice) when the server lacks XFixes.
    /// - Parameter bufferCount: frames that may be in flight at once across every branch.
    public init(connection: XConnection, region: PixelRect, allowSharedMemory: Bool, drawCursor: Bool, bufferCount: Int = 4, logger: Logger) {
        self.connection = connection
        grabber = ScreenGrabber(connection: connection, region: region, allowSharedMemory: allowSharedMemory, bufferCount: bufferCount, logger: logger)
        cursor = drawCursor ? CursorOverlay(connection: connection) : nil
        if drawCursor && cursor == nil {
            logger.notice("the X server has no XFixes extension; capturing without the cursor")
        }
    }

    public var region: PixelRect { grabber.region }
    public var method: ScreenGrabber.Method { grabber.method }

    /// Grabs one frame into a free buffer.
    /// - Returns: `nil` when every buffer is still in use downstream (the slot is skipped).
    /// - Throws: when the X server refused or went away.
    public func capture(sequence: UInt64, time: UInt64) throws(X11RequestError) -> CapturedFrame? {
        guard let buffer = grabber.pool.acquire() else { return nil }
        let position = cursor?.requestPosition()
        do {
            try grabber.grab(into: buffer)
        } catch {
            buffer.share(with: 0)
            throw error
        }
        let frame = CapturedFrame(buffer: buffer, size: grabber.region.size, bytesPerRow: grabber.bytesPerRow, captureTime: time, sequence: sequence)
        if let cursor, let position { cursor.draw(into: frame, region: grabber.region, position: position) }
        return frame
    }
}
