/// One picture taken from the screen: 32-bit BGRA rows (blue first in memory, alpha unspecified)
/// in a pooled buffer, stamped with the time it was grabbed.
public struct CapturedFrame: Sendable {
    public var buffer: FrameBuffer
    public var size: PixelSize
    public var bytesPerRow: Int
    /// When the grab was issued, on `MonotonicClock`, in nanoseconds.
    public var captureTime: UInt64
    /// Counts grabbed frames from 0; gaps mean frames that were skipped.
    public var sequence: UInt64
    /// The rows that differ from the frame before (`sequence - 1`); `nil` when not known, so
    /// any of them may. A branch that took that frame need only redo these rows.
    public var changedRows: RowBands?

    public init(buffer: FrameBuffer, size: PixelSize, bytesPerRow: Int, captureTime: UInt64, sequence: UInt64, changedRows: RowBands? = nil) {
        self.buffer = buffer
        self.size = size
        self.bytesPerRow = bytesPerRow
        self.captureTime = captureTime
        self.sequence = sequence
        self.changedRows = changedRows
    }
}
