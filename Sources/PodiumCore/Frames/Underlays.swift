/// The pixels under what was drawn into each pooled buffer (the cursor, the pointer's highlight),
/// kept to be put back before the buffer is filled again: the rows drawn on then hold the picture
/// as it was grabbed, and need no grab of their own. Storage grows to the largest drawing and
/// stays. Not thread-safe: the capture thread's.
public struct Underlays {
    /// By buffer index: where the pixels were taken from, and the pixels, row after row.
    private var rects: [PixelRect?]
    private var pixels: [[UInt32]]

    public init(bufferCount: Int) {
        rects = Array(repeating: nil, count: bufferCount)
        pixels = Array(repeating: [], count: bufferCount)
    }

    /// Keeps the pixels of `rect` (clipped to the frame) from `frame`'s buffer, before something
    /// is drawn there.
    public mutating func keep(_ rect: PixelRect, of frame: CapturedFrame) {
        let index = frame.buffer.index
        guard index < rects.count,
              let clipped = rect.intersection(PixelRect(x: 0, y: 0, size: frame.size)) else { return }
        if pixels[index].count < clipped.size.area {
            pixels[index] = [UInt32](repeating: 0, count: clipped.size.area)
        }
        pixels[index].withUnsafeMutableBufferPointer { kept in
            guard let base = kept.baseAddress else { return }
            for row in 0..<clipped.height {
                let line = frame.buffer.bytes + (clipped.y + row) * frame.bytesPerRow + clipped.x * 4
                (base + row * clipped.width).update(from: line.assumingMemoryBound(to: UInt32.self),
                                                    count: clipped.width)
            }
        }
        rects[index] = clipped
    }

    /// Puts back what was kept from `buffer`, which holds pictures of `size`, `bytesPerRow` a row.
    public mutating func restore(into buffer: FrameBuffer, size: PixelSize, bytesPerRow: Int) {
        let index = buffer.index
        guard index < rects.count, let rect = rects[index] else { return }
        rects[index] = nil
        guard PixelRect(x: 0, y: 0, size: size).contains(rect), size.height * bytesPerRow <= buffer.capacity else {
            return
        }
        pixels[index].withUnsafeBufferPointer { kept in
            guard let base = kept.baseAddress else { return }
            for row in 0..<rect.height {
                let line = buffer.bytes + (rect.y + row) * bytesPerRow + rect.x * 4
                line.assumingMemoryBound(to: UInt32.self).update(from: base + row * rect.width, count: rect.width)
            }
        }
    }

    /// Forgets everything kept: the buffers are new, or hold another picture.
    public mutating func forget() {
        for index in rects.indices { rects[index] = nil }
    }
}
