public import PodiumCore
import Synchronization

/// A source whose picture the test paints: solid colours in rows, BGRA, with the rows each
/// change touched as the frame's changed rows (as a damage-tracking grabber reports them), and
/// the pointer where the test puts it.
public final class PaintedGrabber: FrameGrabber, Sendable {
    public let size: PixelSize
    private let pool: FrameBufferPool
    private let state: Mutex<(picture: [UInt32], changed: RowBands?, looks: Int, gone: Bool)>
    private let pointed = Mutex<PointerReport?>(nil)

    public init(size: PixelSize, color: RGBColor, buffers: Int = 3) {
        self.size = size
        let bytes = size.area * 4
        pool = FrameBufferPool((0..<buffers).map { index in
            let storage = HeapStorage(capacity: bytes)
            return FrameBuffer(bytes: storage.bytes, capacity: bytes, index: index, storage: storage)
        })
        state = Mutex((Array(repeating: color.pixel, count: size.area), nil, 0, false))
    }

    public var description: String { "a painted \(size) picture" }

    /// How many times it was asked for a picture.
    public var looks: Int { state.withLock { $0.looks } }

    /// Paints `rows` in `color`: the next look hands out a frame that changed there.
    public func paint(_ color: RGBColor, rows: Range<Int>) {
        state.withLock { state in
            for row in rows { for column in 0..<size.width { state.picture[row * size.width + column] = color.pixel } }
            var changed = state.changed ?? RowBands()
            changed.insert(rows)
            state.changed = changed
        }
    }

    /// Where the pointer is from the next look on; `nil` for nowhere.
    public func point(_ report: PointerReport?) {
        pointed.withLock { $0 = report }
    }

    public var pointer: PointerReport? { pointed.withLock { $0 } }

    /// Makes the source go away (it waits, as a camera unplugged does) or come back, changed whole.
    public func setGone(_ gone: Bool) {
        state.withLock { state in
            state.gone = gone
            if !gone { state.changed = RowBands(0..<size.height) }
        }
    }

    public func capture(sequence: UInt64, time: UInt64, slotTime: UInt64, evenIfUnchanged: Bool)
        throws(PodiumError) -> CaptureOutcome {
        let (picture, changed, gone) = state.withLock { state in
            state.looks += 1
            return (state.picture, state.changed, state.gone)
        }
        if gone { return .waiting }
        guard changed != nil || evenIfUnchanged else { return .unchanged }
        guard let buffer = pool.acquire() else { return .busy }
        state.withLock { $0.changed = nil }
        picture.withUnsafeBytes { buffer.bytes.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return .frame(CapturedFrame(buffer: buffer, size: size, bytesPerRow: size.width * 4, captureTime: time,
                                    slotTime: slotTime, sequence: sequence, changedRows: changed ?? RowBands()))
    }
}

/// Scales BGRA by picking the nearest pixel: the compositor's scaler in tests, which counts the
/// rows it drew.
public final class NearestScaler: FrameScaling {
    public let crop: PixelSize
    public let output: PixelSize
    public private(set) var rowsDrawn = 0
    public var scalesRows: Bool { true }

    public init(crop: PixelSize, output: PixelSize) {
        self.crop = crop
        self.output = output
    }

    public func scale(_ frame: CapturedFrame, from source: PixelRect, into pixels: UnsafeMutableRawPointer,
                      bytesPerRow: Int) {
        scale(frame, from: source, rows: RowBands(0..<output.height), into: pixels, bytesPerRow: bytesPerRow)
    }

    public func scale(_ frame: CapturedFrame, from source: PixelRect, rows: RowBands,
                      into pixels: UnsafeMutableRawPointer, bytesPerRow: Int) {
        let clamped = rows.clamped(toHeight: output.height)
        for band in 0..<clamped.count {
            for row in clamped[band] {
                let sourceRow = source.y + row * source.height / output.height
                for column in 0..<output.width {
                    let sourceColumn = source.x + column * source.width / output.width
                    let offset = sourceRow * frame.bytesPerRow + sourceColumn * 4
                    let pixel = frame.buffer.bytes.load(fromByteOffset: offset, as: UInt32.self)
                    pixels.storeBytes(of: pixel, toByteOffset: row * bytesPerRow + column * 4, as: UInt32.self)
                }
                rowsDrawn += 1
            }
        }
    }
}
