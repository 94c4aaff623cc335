import Synchronization

/// Memory that holds one captured picture, lent from a `FrameBufferPool` and shared by every
/// stage that reads the frame; it goes back to the pool when the last of them releases it.
///
/// The bytes stay valid while `storage` lives (for MIT-SHM, the attached segment).
public final class FrameBuffer: Sendable {
    /// The first byte of the picture.
    public nonisolated(unsafe) let bytes: UnsafeMutableRawPointer
    public let capacity: Int
    /// The buffer's place in its pool, which lets a grabber find the segment behind it.
    public let index: Int
    private let storage: any Sendable & AnyObject
    private let users = Atomic<Int>(0)
    fileprivate nonisolated(unsafe) weak var pool: FrameBufferPool?

    /// - Parameters:
    ///   - bytes: memory of at least `capacity` bytes that lives as long as `storage`.
    ///   - storage: the owner of that memory; it frees the memory in its `deinit`.
    public init(bytes: UnsafeMutableRawPointer, capacity: Int, index: Int, storage: any Sendable & AnyObject) {
        self.bytes = bytes
        self.capacity = capacity
        self.index = index
        self.storage = storage
    }

    /// Adds `readers` users of the picture (stages, and the fan-out keeping the last frame);
    /// each of them calls `release()` once. With none at all, the buffer goes back.
    public func share(with readers: Int) {
        if users.add(readers, ordering: .acquiringAndReleasing).newValue == 0 { pool?.giveBack(self) }
    }

    /// Ends one reader's use; the last one returns the buffer to its pool.
    public func release() {
        if users.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            pool?.giveBack(self)
        }
    }
}

/// A fixed set of frame buffers. Capture takes one per frame and skips the frame when none is free,
/// so memory never grows with time. Thread-safe.
public final class FrameBufferPool: Sendable {
    private let free: Mutex<[FrameBuffer]>
    public let count: Int

    public init(_ buffers: [FrameBuffer]) {
        count = buffers.count
        var stack = buffers
        stack.reserveCapacity(buffers.count)
        free = Mutex(stack)
        for buffer in buffers { buffer.pool = self }
    }

    /// A free buffer, or `nil` when every buffer is in use.
    public func acquire() -> FrameBuffer? {
        free.withLock { $0.popLast() }
    }

    /// How many buffers are free now.
    public var available: Int { free.withLock { $0.count } }

    fileprivate func giveBack(_ buffer: FrameBuffer) {
        free.withLock { $0.append(buffer) }
    }
}

/// Plain heap memory for a frame buffer, for grabbers that do not capture into shared memory.
public final class HeapStorage: Sendable {
    public nonisolated(unsafe) let bytes: UnsafeMutableRawPointer

    /// Zeroed at once, so that the pages are resident from the start (see `makeResident`).
    public init(capacity: Int) {
        bytes = .allocate(byteCount: capacity, alignment: 64)
        bytes.makeResident(byteCount: capacity)
    }

    deinit { bytes.deallocate() }
}

extension UnsafeMutableRawPointer {
    /// Writes zeros over `byteCount` bytes of fresh memory, making each page resident now. A
    /// pool's buffers are then paid for when the pool is made: the first frame written to one takes
    /// no page faults on the hot path, and the resident size does not step up, long into a run, the
    /// first time a burst puts one more buffer in use.
    public func makeResident(byteCount: Int) {
        initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
    }
}
