import Synchronization

/// Where a library's own thread (PipeWire's, a camera reader's) leaves frames for the capture
/// thread: each is written at once into a buffer of the inbox's pool (the library's buffer goes
/// back to it), and the newest waits for the next slot of the run's grid, a newer one replacing
/// it. So capture stays paced: never faster than the grid, skipping rather than bursting.
///
/// A source with a rate of its own (a camera's 30 fps) sampled on a grid of the same rate
/// meets it at a phase that wanders: two frames land between two slots, one replaced, and the
/// next slot gets none. Such a source's inbox holds one frame back (`holdsOneBack`): the
/// older of two waiting goes at a slot, the newer at the next, for one frame of delay once
/// two met; a third in a slot's time replaces the newer of those waiting, as before.
/// Thread-safe.
public final class FrameInbox: Sendable {
    /// A frame written into one of the inbox's buffers: BGRA, rows packed.
    public struct Arrived: Sendable {
        public var buffer: FrameBuffer
        public var size: PixelSize
        public var bytesPerRow: Int { size.width * 4 }
        /// When it came, on the run's clock.
        public var time: UInt64
        /// The rows that changed since the frame taken before; `nil` for all of them.
        public var rows: RowBands?
    }

    private struct State: Sendable {
        var pool: FrameBufferPool?
        var poolSize = PixelSize(width: 0, height: 0)
        var newest: Arrived?
        /// Held back before `newest`, when the inbox holds one back.
        var older: Arrived?
        var firstSize: PixelSize?
        var ended: String?
        /// A frame was dropped: what it changed is not known to the next one.
        var lostChanges = false
    }

    private let bufferCount: Int
    private let clock: any PacingClock
    private let holdsOneBack: Bool
    private let state = Mutex(State())

    /// - Parameters:
    ///   - bufferCount: frames that may be in flight at once: those waiting here (one, or two
    ///     when it holds one back), the rest downstream.
    ///   - holdsOneBack: two frames may wait, the older taken first (a source with its own rate).
    public init(bufferCount: Int, clock: any PacingClock, holdsOneBack: Bool = false) {
        self.bufferCount = bufferCount
        self.clock = clock
        self.holdsOneBack = holdsOneBack
    }

    /// On the producer's thread: a free buffer for a frame of `size` (buffers of a new size are
    /// made when it changes; the old ones go as the stages release them). `nil` when every buffer
    /// is in use downstream: the frame is dropped, as a slow stage's would be, and the next one
    /// changes every row.
    public func freeBuffer(for size: PixelSize) -> FrameBuffer? {
        let rowBytes = size.width * 4
        let pool = state.withLock { state -> FrameBufferPool in
            state.firstSize = state.firstSize ?? size
            if let pool = state.pool, state.poolSize == size { return pool }
            let made = FrameBufferPool((0..<bufferCount).map { index in
                let storage = HeapStorage(capacity: rowBytes * size.height)
                return FrameBuffer(bytes: storage.bytes, capacity: rowBytes * size.height, index: index,
                                   storage: storage)
            })
            (state.pool, state.poolSize) = (made, size)
            return made
        }
        guard let buffer = pool.acquire() else {
            state.withLock { $0.lostChanges = true }
            return nil
        }
        return buffer
    }

    /// On the producer's thread: a buffer from `freeBuffer` that was not filled after all (a
    /// picture that did not decode); the next frame changes every row.
    public func giveBack(_ buffer: FrameBuffer) {
        buffer.share(with: 0)
        state.withLock { $0.lostChanges = true }
    }

    /// On the producer's thread: `buffer`, from `freeBuffer` and filled, is the newest frame.
    /// - Parameter rows: the rows that changed since the frame before; `nil` for all of them.
    public func deliver(_ buffer: FrameBuffer, size: PixelSize, rows: RowBands?) {
        var arrived = Arrived(buffer: buffer, size: size, time: clock.now(), rows: rows)
        let replaced = state.withLock { state -> FrameBuffer? in
            if state.lostChanges {
                state.lostChanges = false
                arrived.rows = nil
            }
            guard var newest = state.newest else {
                state.newest = arrived
                return nil
            }
            guard holdsOneBack else {
                Self.merge(newest, into: &arrived)
                state.newest = arrived
                return newest.buffer
            }
            guard let older = state.older else {
                (state.older, state.newest) = (newest, arrived)
                return nil
            }
            // Three waiting: the oldest goes, the next one counting its changes too.
            Self.merge(older, into: &newest)
            (state.older, state.newest) = (newest, arrived)
            return older.buffer
        }
        replaced?.share(with: 0)
    }

    /// `later` replaces `earlier`, which is never taken: what changed since the frame taken before
    /// is both frames' changes (all rows when either does not say, or the size changed).
    private static func merge(_ earlier: Arrived, into later: inout Arrived) {
        if var union = earlier.rows, let rows = later.rows, earlier.size == later.size {
            union.formUnion(rows)
            later.rows = union
        } else {
            later.rows = nil
        }
    }

    /// The producer ended for good: why, kept for the capture thread to say (the first reason).
    public func end(_ reason: String) {
        state.withLock { $0.ended = $0.ended ?? reason }
    }

    /// Why the producer ended, once it did.
    public var ended: String? { state.withLock { $0.ended } }

    /// The newest frame, taken (the older of two held back): `nil` when none came since the last.
    public func take() -> Arrived? {
        state.withLock { state in
            if let older = state.older {
                state.older = nil
                return older
            }
            defer { state.newest = nil }
            return state.newest
        }
    }

    /// The size of the first frame, waiting for it at most `timeout` seconds; `nil` when none came
    /// or the producer ended first.
    public func firstSize(within timeout: Double) -> PixelSize? {
        let deadline = clock.now() + UInt64(timeout * 1e9)
        while clock.now() < deadline {
            if let size = state.withLock({ $0.firstSize }) { return size }
            if ended != nil { return nil }
            clock.sleep(until: clock.now() + 10_000_000)
        }
        return nil
    }

    /// Gives back the frames that were never taken.
    public func drain() {
        while let frame = take() { frame.buffer.share(with: 0) }
    }
}

/// The capture thread's side of an inbox: the newest frame at a slot, or the last one handed on
/// again when the slot must send a frame and nothing new came. Not thread-safe.
public struct InboxReader: ~Copyable {
    /// The last frame handed on, held to hand on again.
    private var latest: CapturedFrame?

    public init() {}

    deinit { latest?.buffer.release() }

    /// What a slot hands on: `arrived` (from `FrameInbox.take`), or the last frame again when
    /// `evenIfUnchanged`, or `.unchanged`.
    public mutating func next(_ arrived: FrameInbox.Arrived?, sequence: UInt64, slotTime: UInt64,
                              evenIfUnchanged: Bool) -> CaptureOutcome {
        guard let arrived else {
            guard evenIfUnchanged, var frame = latest else { return .unchanged }
            frame.sequence = sequence
            frame.slotTime = slotTime
            frame.changedRows = RowBands()
            return .frame(frame)
        }
        let frame = CapturedFrame(buffer: arrived.buffer, size: arrived.size, bytesPerRow: arrived.bytesPerRow,
                                  captureTime: arrived.time, slotTime: slotTime, sequence: sequence,
                                  changedRows: latest?.size == arrived.size ? arrived.rows : nil)
        frame.buffer.share(with: 1)
        latest?.buffer.release()
        latest = frame
        return .frame(frame)
    }
}
