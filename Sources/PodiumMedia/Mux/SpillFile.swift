import Glibc
import Synchronization

/// A temporary file that a replay spills packets to once memory is full: appended to on the
/// keeper's thread, read back by a save on any thread. It has no name (removed as soon as it is
/// made), so nothing is left of it when the run ends, is killed, or the machine loses power.
final class SpillFile: Sendable {
    private let descriptor: Int32
    /// Bytes written so far: the next append's offset. Written on the keeper's thread only.
    private let written = Atomic<Int64>(0)

    /// Makes one in `folder`.
    /// - Throws: the `errno` of what failed.
    init(in folder: String) throws(Errno) {
        var template = Array((folder + "/podium-replay-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { $0.baseAddress.map { mkstemp($0) } ?? -1 }
        guard descriptor >= 0 else { throw Errno(errno) }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { if let name = $0.baseAddress { _ = unlink(name) } }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    var size: Int64 { written.load(ordering: .relaxed) }

    /// Writes `bytes` at the end. - Returns: where they start.
    /// - Throws: what the write said (a full disk); what was written of them is not used.
    func append(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int64 {
        let start = written.load(ordering: .relaxed)
        var done = 0
        while done < bytes.count {
            let count = pwrite(descriptor, bytes.baseAddress.map { $0 + done }, bytes.count - done, Int(start) + done)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw Errno(count < 0 ? errno : ENOSPC) }
            done += count
        }
        written.store(start + Int64(done), ordering: .relaxed)
        return start
    }

    /// Reads `buffer.count` bytes from `offset` into `buffer`. - Returns: whether all were read.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Bool {
        var done = 0
        while done < buffer.count {
            let count = pread(descriptor, buffer.baseAddress.map { $0 + done }, buffer.count - done, Int(offset) + done)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
    }
}

/// An `errno` value, as a typed error.
struct Errno: Error, CustomStringConvertible {
    var code: Int32
    init(_ code: Int32) { self.code = code }
    var description: String { String(cString: strerror(code)) }
}
