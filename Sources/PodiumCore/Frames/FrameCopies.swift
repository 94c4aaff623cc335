/// Copies of captured frames in buffers of their own, for a stage that draws on a picture whose
/// source keeps it as it was (a source hands its last frame out again when nothing changed).
/// Buffers are made for the largest picture asked for, and stay. Not thread-safe: the capture
/// thread's.
///
/// A copy that follows its source (`followsSource`) is told of every frame the source hands out,
/// and of what was drawn on each copy: a buffer that held the same part of the picture before
/// then gets only the rows that changed since, or were drawn on, copied again.
public struct FrameCopies {
    /// What one buffer holds: the part of the source's picture (of that size) it was cut from,
    /// and the rows of the source's picture it no longer shows as they are.
    private struct Held {
        var area: PixelRect
        var sourceSize: PixelSize
        var stale = RowBands()
    }

    private let bufferCount: Int
    private let followsSource: Bool
    private var pool: FrameBufferPool?
    private var capacity = 0
    /// By buffer index; `nil` for a buffer whose content is not known.
    private var held: [Held?]

    /// - Parameters:
    ///   - bufferCount: copies that may be in flight at once downstream.
    ///   - followsSource: the caller reports each frame of its source (`sourceChanged`) and what it
    ///     drew on each copy (`drewOn`), so that a copy need not be made whole each time.
    public init(bufferCount: Int, followsSource: Bool = false) {
        self.bufferCount = bufferCount
        self.followsSource = followsSource
        held = Array(repeating: nil, count: bufferCount)
    }

    /// The source handed out a frame that changed `rows` (all of them when `nil`).
    public mutating func sourceChanged(_ rows: RowBands?) {
        for index in held.indices {
            guard let rows else {
                held[index] = nil
                continue
            }
            held[index]?.stale.formUnion(rows)
        }
    }

    /// `rows` of `copy` (a frame `copy(of:area:)` made) were drawn on: they are copied again the
    /// next time its buffer is filled.
    public mutating func drewOn(_ rows: RowBands, of copy: CapturedFrame) {
        let index = copy.buffer.index
        guard index < held.count, let area = held[index]?.area else { return }
        held[index]?.stale.formUnion(rows.offset(by: area.y))
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
            for index in held.indices { held[index] = nil }
        }
        guard let buffer = pool?.acquire() else { return nil }
        var rows = RowBands(0..<area.height)
        if followsSource, buffer.index < held.count {
            if let known = held[buffer.index], known.area == area, known.sourceSize == frame.size {
                rows = known.stale.offset(by: -area.y).clamped(toHeight: area.height)
            }
            held[buffer.index] = Held(area: area, sourceSize: frame.size)
        }
        for band in 0..<rows.count {
            for row in rows[band] {
                (buffer.bytes + row * rowBytes).copyMemory(
                    from: frame.buffer.bytes + (area.y + row) * frame.bytesPerRow + area.x * 4, byteCount: rowBytes)
            }
        }
        var copied = CapturedFrame(buffer: buffer, size: area.size, bytesPerRow: rowBytes,
                                   captureTime: frame.captureTime, slotTime: frame.slotTime, sequence: frame.sequence)
        copied.interval = frame.interval
        return copied
    }
}
