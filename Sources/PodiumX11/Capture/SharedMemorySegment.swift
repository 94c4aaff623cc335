import CXCB
import PodiumCore
#if canImport(Glibc)
import Glibc
#endif

/// A System V shared memory segment attached both here and in the X server. Frees both ends in `deinit`.
final class SharedMemorySegment: @unchecked Sendable {
    let id: xcb_shm_seg_t
    let bytes: UnsafeMutableRawPointer
    private let connection: XConnection

    /// Creates and attaches a segment of `size` bytes.
    ///
    /// The corresponding C functions are `shmget`, `shmat` and `xcb_shm_attach`.
    /// - Returns: `nil` when the segment cannot be made or the server cannot attach it
    ///   (a server on another machine, say); the caller then falls back to `GetImage`.
    init?(connection: XConnection, size: Int) {
        let shmID = shmget(IPC_PRIVATE, size, IPC_CREAT | 0o600)
        guard shmID >= 0 else { return nil }
        // Marked for removal at once: the kernel frees it when both sides detach, even after a crash.
        defer { shmctl(shmID, IPC_RMID, nil) }
        guard let address = shmat(shmID, nil, 0), cxcb_shmat_failed(address) == 0 else { return nil }
        let segment = connection.generateID()
        do {
            try connection.check(xcb_shm_attach_checked(connection.raw, segment, UInt32(shmID), 0))
        } catch {
            shmdt(address)
            return nil
        }
        self.id = segment
        self.bytes = address
        self.connection = connection
        address.makeResident(byteCount: size)
    }

    deinit {
        xcb_shm_detach(connection.raw, id)
        connection.flush()
        shmdt(bytes)
    }
}
