import Foundation
import PodiumCore
import Synchronization

/// A descriptor Podium writes text to (stderr, stdout, a `--stats-json` file) that never traps:
/// the first write that fails (a closed pipe, a full disk) is remembered, and everything after it
/// is dropped. Foundation's `FileHandle.write` would end the process instead, losing the recording.
///
/// Thread-safe: writes are serialized, so lines from different threads never interleave.
final class TextOutput: Sendable {
    /// How the output is named in messages.
    let name: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// The errno of the first failed write; `nil` while writing works.
    private let failure = Mutex<Int32?>(nil)

    static let standardError = TextOutput(descriptor: STDERR_FILENO, name: "stderr", owns: false)
    static let standardOutput = TextOutput(descriptor: STDOUT_FILENO, name: "stdout", owns: false)

    private init(descriptor: Int32, name: String, owns: Bool) {
        self.descriptor = descriptor
        self.name = name
        ownsDescriptor = owns
    }

    deinit {
        if ownsDescriptor { Glibc.close(descriptor) }
    }

    /// Opens `path` for writing: `-` is stdout; a stream (`OutputCheck.isStream`: a FIFO, a
    /// terminal, `/dev/stdout`) is appended to as it is, never created, truncated or replaced; an
    /// existing regular file is truncated (the caller checked `--overwrite`); a new file is created.
    /// - Throws: 73 naming `flag` when it cannot be opened.
    static func open(_ path: String, flag: String) throws(PodiumError) -> TextOutput {
        if path == "-" { return TextOutput(descriptor: STDOUT_FILENO, name: "\(flag) -", owns: false) }
        let name = "\(flag) '\(path)'"
        // A FIFO nobody reads would block the open forever; without a reader it fails with ENXIO instead.
        let flags = OutputCheck.isStream(path) ? O_WRONLY | O_APPEND | O_NONBLOCK
            : access(path, F_OK) == 0 ? O_WRONLY | O_TRUNC : O_WRONLY | O_CREAT | O_EXCL
        let descriptor = Glibc.open(path, flags | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason = errno == ENXIO ? "nothing reads from it" : String(cString: strerror(errno))
            throw .cannotCreate("\(name) cannot be opened for writing: \(reason)")
        }
        if flags & O_NONBLOCK != 0 { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK) }
        return TextOutput(descriptor: descriptor, name: name, owns: true)
    }

    /// Writes all of `text`, unless writing has failed before.
    /// - Returns: the errno when this write is the one that failed, so the caller can say so once;
    ///   `nil` when it was written, or dropped after an earlier failure.
    @discardableResult
    func write(_ text: String) -> Int32? {
        var text = text
        return text.withUTF8 { bytes in
            failure.withLock { failure -> Int32? in
                guard failure == nil, let start = bytes.baseAddress else { return nil }
                var offset = 0
                while offset < bytes.count {
                    let written = Glibc.write(descriptor, start + offset, bytes.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0 && errno == EINTR {
                        continue
                    } else {
                        failure = written < 0 ? errno : ENOSPC
                        return failure
                    }
                }
                return nil
            }
        }
    }
}
