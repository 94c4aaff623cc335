/// A blanked screen, as PowerPoint's B and W keys make it: every output gets one colour instead
/// of the screen.
public enum Blank: UInt8, Sendable, CustomStringConvertible {
    case black = 1
    case white = 2

    public var description: String { self == .black ? "black" : "white" }
}

/// The frames a blanked run sends instead of the screen, made on the capture thread from a small
/// pool of its own: a whole picture of one colour when the blank begins or changes colour, then
/// the same at the idle rate with no row changed, so the encoders have nothing to redo and the
/// outputs keep their timeline at almost no cost. Not thread-safe: the capture thread's.
struct BlankPicture {
    private let bufferCount: Int
    private var pool: FrameBufferPool?
    private var size: PixelSize?
    /// The colour each buffer holds now, by its index.
    private var filled: [Blank?]
    /// The colour of the last frame made.
    private(set) var shown: Blank?

    /// - Parameter bufferCount: frames that may be in flight at once across every stage.
    init(bufferCount: Int) {
        self.bufferCount = bufferCount
        filled = Array(repeating: nil, count: bufferCount)
    }

    /// A frame of `colour` and `size`; `nil` when every buffer is still in use downstream.
    mutating func frame(_ colour: Blank, size: PixelSize, sequence: UInt64, time: UInt64, slotTime: UInt64)
        -> CapturedFrame? {
        let bytesPerRow = size.width * 4
        if self.size != size || pool == nil {
            pool = FrameBufferPool((0..<bufferCount).map { index in
                let storage = HeapStorage(capacity: bytesPerRow * size.height)
                return FrameBuffer(bytes: storage.bytes, capacity: bytesPerRow * size.height, index: index,
                                   storage: storage)
            })
            filled = Array(repeating: nil, count: bufferCount)
            self.size = size
            shown = nil
        }
        guard let buffer = pool?.acquire() else { return nil }
        if filled[buffer.index] != colour {
            // BGRA: black is all zeros, white all ones.
            buffer.bytes.initializeMemory(as: UInt8.self, repeating: colour == .black ? 0 : 0xFF,
                                          count: bytesPerRow * size.height)
            filled[buffer.index] = colour
        }
        // The whole picture when the colour is new; nothing changed when it is the one shown.
        let changed: RowBands? = shown == colour ? RowBands() : nil
        shown = colour
        return CapturedFrame(buffer: buffer, size: size, bytesPerRow: bytesPerRow, captureTime: time,
                             slotTime: slotTime, sequence: sequence, changedRows: changed)
    }

    /// The blank ended: the next blank starts with a whole picture again.
    mutating func ended() {
        shown = nil
    }
}
