/// Copies of captured frames in buffers of their own, for a stage that draws on a picture whose
/// source keeps it as it was (a source hands its last frame out again when nothing changed).
/// Buffers are made for the largest picture asked for, and stay. Not thread-safe: the capture
/// thread's.
public struct FrameCopies {
    private let bufferCount: Int
    private var pool: FrameBufferPool?
    private var capacity = 0

    /// - Parameter bufferCount: copies that may be in flight at once downstream.
    public init(bufferCount: Int) {
        self.bufferCount = bufferCount
    }

    /// A copy of the `area` of `frame` (all of it when `nil`), with its times and sequence; the
    /// rows changed are not known. `frame` is left as it is.
    /// - Returns: `nil` when every copy is still in use downstream.
    public mutating func copy(of frame: CapturedFrame, area: PixelRect? = nil) -> CapturedFrame? {
        let area = area ?? PixelRect(x: 0, y: 0, size: frame.size)
        let rowBytes = area.width * 4
        let bytes = rowBytes * area.height
        if pool == nil || bytes > capacity {
            // New buffers for a larger picture: those in flight go as they are released.
            pool = FrameBufferPool((0..<bufferCount).map { index in
                let storage = HeapStorage(capacity: bytes)
                return FrameBuffer(bytes: storage.bytes, capacity: bytes, index: index, storage: storage)
            })
            capacity = bytes
        }
        guard let buffer = pool?.acquire() else { return nil }
        for row in 0..<area.height {
            (buffer.bytes + row * rowBytes).copyMemory(
                from: frame.buffer.bytes + (area.y + row) * frame.bytesPerRow + area.x * 4, byteCount: rowBytes)
        }
        var copied = CapturedFrame(buffer: buffer, size: area.size, bytesPerRow: rowBytes,
                                   captureTime: frame.captureTime, slotTime: frame.slotTime, sequence: frame.sequence)
        copied.interval = frame.interval
        return copied
    }
}
