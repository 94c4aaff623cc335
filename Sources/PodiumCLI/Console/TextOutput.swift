import Foundation
import PodiumCore
import Synchronization

/// Where Podium writes text (stderr, stdout, a `--stats-json` file), never trapping: a descriptor,
/// whose first write that fails (a closed pipe, a full disk) is remembered, and everything after it
/// dropped (Foundation's `FileHandle.write` would end the process instead, losing the recording);
/// or, for a run inside another program, that program's keeper of the text.
///
/// Thread-safe: writes are serialized, so lines from different threads never interleave.
final class TextOutput: Sendable {
    /// Takes text written to a run inside another program.
    typealias Keep = @Sendable (String) -> Void

    /// How the output is named in messages.
    let name: String
    private let sink: Sink
    /// The errno of the first failed write; `nil` while writing works.
    private let failure = Mutex<Int32?>(nil)

    private enum Sink {
        case descriptor(Int32, owned: Bool)
        case kept(Keep)
    }

    static let standardError = TextOutput(.descriptor(STDERR_FILENO, owned: false), name: "stderr")
    static let standardOutput = TextOutput(.descriptor(STDOUT_FILENO, owned: false), name: "stdout")

    private init(_ sink: Sink, name: String) {
        self.sink = sink
        self.name = name
    }

    /// Text that `keep` takes, named `name`.
    convenience init(name: String, keep: @escaping Keep) {
        self.init(.kept(keep), name: name)
    }

    deinit {
        if case .descriptor(let descriptor, owned: true) = sink { Glibc.close(descriptor) }
    }

    /// Opens `path` for writing: `-` is the invocation's stdout; a stream (`OutputCheck.isStream`: a FIFO, a
    /// terminal, `/dev/stdout`) is appended to as it is, never created, truncated or replaced; an
    /// existing regular file is truncated (the caller checked `--overwrite`); a new file is created.
    /// - Throws: 73 naming `flag` when it cannot be opened.
    static func open(_ path: String, flag: String) throws(PodiumError) -> TextOutput {
        if path == "-" { return TextOutput(Invocation.current.standardOutput.sink, name: "\(flag) -") }
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
        return TextOutput(.descriptor(descriptor, owned: true), name: name)
    }

    /// Writes all of `text`, unless writing has failed before.
    /// - Returns: the errno when this write is the one that failed, so the caller can say so once;
    ///   `nil` when it was written, or dropped after an earlier failure.
    @discardableResult
    func write(_ text: String) -> Int32? {
        let descriptor: Int32
        switch sink {
        case .kept(let keep): keep(text); return nil
        case .descriptor(let own, _): descriptor = own
        }
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
