#if canImport(Glibc)
import Glibc
#endif

/// Wakes a thread that waits in `poll(2)` on descriptors of its own (an X connection): rung by
/// whoever changed what it shows, so that it sleeps until then instead of waking to look.
/// A pipe of its own, both ends non-blocking: a ring is a byte (none when the pipe is full, which
/// rings already). Thread-safe. Without a pipe (no descriptors left), ringing does nothing and
/// the waiter's timeout stands in.
public final class Doorbell: Sendable {
    /// Readable once rung, until `answer`.
    public let descriptor: Int32
    private let ringer: Int32

    public init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, O_NONBLOCK)
            }
        } else {
            ends = [-1, -1]
        }
        descriptor = ends[0]
        ringer = ends[1]
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if ringer >= 0 { close(ringer) }
    }

    public func ring() {
        guard ringer >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(ringer, &byte, 1)
    }

    /// Takes every ring so far: the descriptor is quiet until the next.
    public func answer() {
        guard descriptor >= 0 else { return }
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &bytes, { read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }
}
