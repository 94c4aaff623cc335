/// One picture taken from a source: 32-bit BGRA rows (blue first in memory, alpha unspecified)
/// in a pooled buffer, with two times: when it was grabbed, and its slot on the run's frame-rate
/// grid.
public struct CapturedFrame: Sendable {
    public var buffer: FrameBuffer
    public var size: PixelSize
    public var bytesPerRow: Int
    /// When the grab was issued, on `MonotonicClock`, in nanoseconds: latency figures count from it.
    public var captureTime: UInt64
    /// When the frame's slot on the run's frame-rate grid begins, in nanoseconds since the run's
    /// first slot: packet times come from it, so no two frames share a tick and consecutive
    /// frames are at least one frame interval apart, whenever they were grabbed.
    public var slotTime: UInt64
    /// The frame-rate grid's interval when the frame was taken, in nanoseconds: how long it is
    /// shown (the rate may change as the run goes on). Set by the source that paces capture.
    public var interval: UInt64 = 0
    /// Counts the source's frames from 0; gaps mean frames that were skipped.
    public var sequence: UInt64
    /// The rows that differ from the frame before (`sequence - 1`); `nil` when not known, so
    /// any of them may. A stage that took that frame need only redo these rows.
    public var changedRows: RowBands?

    public init(buffer: FrameBuffer, size: PixelSize, bytesPerRow: Int, captureTime: UInt64, slotTime: UInt64,
                sequence: UInt64, changedRows: RowBands? = nil) {
        self.buffer = buffer
        self.size = size
        self.bytesPerRow = bytesPerRow
        self.captureTime = captureTime
        self.slotTime = slotTime
        self.sequence = sequence
        self.changedRows = changedRows
    }
}
