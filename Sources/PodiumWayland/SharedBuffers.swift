import CWayland
import PodiumCore
#if canImport(Glibc)
import Glibc
#endif

/// The buffers screencopy copies into: each its own shared memory, mapped here and lent to the
/// compositor as a `wl_buffer`, lent to the stages as a `FrameBuffer`.
///
/// Made and dropped on the display's thread; the memory lives on while a stage reads it.
final class SharedBuffers {
    let offer: CopyRequest.Offer
    let pool: FrameBufferPool
    /// The compositor's handle of each buffer, by the buffer's index.
    let wayland: [OpaquePointer]

    /// - Throws: 69 when the memory cannot be made or lent.
    init(offer: CopyRequest.Offer, count: Int, sharedMemory: OpaquePointer) throws(PodiumError) {
        self.offer = offer
        let bytes = offer.bytesPerRow * offer.size.height
        var frames: [FrameBuffer] = []
        var wayland: [OpaquePointer] = []
        for index in 0..<count {
            let buffer = try SharedBuffer(size: offer.size, bytesPerRow: offer.bytesPerRow, format: offer.format,
                                          sharedMemory: sharedMemory)
            guard let start = UnsafeMutableRawPointer(bitPattern: buffer.memory.address) else {
                throw .unavailable("shared memory was mapped at no address")
            }
            frames.append(FrameBuffer(bytes: start, capacity: bytes, index: index, storage: buffer.memory))
            wayland.append(buffer.wayland)
        }
        pool = FrameBufferPool(frames)
        self.wayland = wayland
    }

    deinit {
        for buffer in wayland { wl_buffer_destroy(buffer) }
    }
}

/// One picture's worth of shared memory, mapped here and lent to the compositor as a `wl_buffer`
/// (which the owner destroys).
struct SharedBuffer {
    let memory: SharedMemory
    let wayland: OpaquePointer

    /// - Parameter format: a `wl_shm` format (`WL_SHM_FORMAT_ARGB8888`).
    /// - Throws: 69 when the memory cannot be made or lent.
    init(size: PixelSize, bytesPerRow: Int, format: UInt32, sharedMemory: OpaquePointer) throws(PodiumError) {
        let bytes = bytesPerRow * size.height
        let descriptor = cwl_memfd()
        defer { if descriptor >= 0 { close(descriptor) } }
        guard descriptor >= 0, ftruncate(descriptor, off_t(bytes)) == 0,
              let memory = SharedMemory(mapping: descriptor, byteCount: bytes) else {
            throw .unavailable("cannot make \(bytes) bytes of shared memory: \(String(cString: strerror(errno)))")
        }
        // The buffer keeps what it needs of the pool, and the compositor its own handle of the memory.
        guard let pool = wl_shm_create_pool(sharedMemory, descriptor, Int32(bytes)) else {
            throw .unavailable("the Wayland compositor refused shared memory of \(bytes) bytes")
        }
        let buffer = wl_shm_pool_create_buffer(pool, 0, Int32(size.width), Int32(size.height), Int32(bytesPerRow),
                                               format)
        wl_shm_pool_destroy(pool)
        guard let buffer else { throw .unavailable("the Wayland compositor refused a buffer") }
        self.memory = memory
        wayland = buffer
    }
}

/// Shared memory mapped here; unmapped when the last frame reading it is done.
final class SharedMemory: Sendable {
    let address: UInt
    private let byteCount: Int

    /// Maps `byteCount` bytes of the memory behind `descriptor`; `nil` when it cannot.
    init?(mapping descriptor: Int32, byteCount: Int) {
        guard let mapped = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
              mapped != MAP_FAILED else { return nil }
        address = UInt(bitPattern: mapped)
        self.byteCount = byteCount
    }

    deinit {
        munmap(UnsafeMutableRawPointer(bitPattern: address), byteCount)
    }
}
