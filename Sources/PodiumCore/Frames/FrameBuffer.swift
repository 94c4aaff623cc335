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

    /// Adds `readers` users of the picture (stages, or capture keeping it to compare the next
    /// frame with); each of them calls `release()` once. With none at all, the buffer goes back.
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

    public init(capacity: Int) {
        bytes = .allocate(byteCount: capacity, alignment: 64)
    }

    deinit { bytes.deallocate() }
}
