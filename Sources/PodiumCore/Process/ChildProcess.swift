public import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A child process started with `posix_spawn`, with a clean signal mask and default handlers.
///
/// A thread that blocks signals (test threads do) passes that mask on: an Xvfb or a `podium`
/// started by Foundation's `Process` from one would ignore SIGTERM and SIGINT.
///
/// Thread-safe: any thread may ask whether it runs, signal it or wait for it.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    /// The raw wait status, once the child was reaped.
    private let status = Mutex<Int32?>(nil)

    /// - Parameters:
    ///   - arguments: the program (looked up in PATH) and its arguments.
    ///   - files: file descriptors of the child to open on paths (write-only, created), such as 1, 2 or 3.
    /// - Throws: `.unavailable` when the program cannot be started.
    public init(_ arguments: [String], environment: [String: String], files: [Int32: String]) throws(PodiumError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (fd, path) in files.sorted(by: { $0.key < $1.key }) {
            posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw .unavailable("cannot start \(arguments[0]): \(String(cString: strerror(result)))")
        }
        self.pid = pid
    }

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
            _ = waitForExit()
        }
    }

    /// Whether the child is still running (reaps it if it ended).
    public var isRunning: Bool { reap(blocking: false) == nil }

    public func signal(_ number: Int32) { kill(pid, number) }

    /// Waits for the end; returns the exit code, or 128 + the signal that killed it.
    public func waitForExit() -> Int32 {
        var reaped = reap(blocking: true)
        while reaped == nil {
            sched_yield()
            reaped = reap(blocking: true)
        }
        let raw = reaped ?? 0
        let signal = raw & 0x7F
        return signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
    }

    /// The wait status if the child ended (reaping it once); `nil` while it runs.
    private func reap(blocking: Bool) -> Int32? {
        if let known = status.withLock({ $0 }) { return known }
        var raw: Int32 = 0
        let result = waitpid(pid, &raw, blocking ? 0 : WNOHANG)
        if result == pid { return status.withLock { $0 = $0 ?? raw; return $0 } }
        // Another thread reaped it in between (ECHILD) and stored what it got; or a signal
        // interrupted the wait (EINTR), and the caller asks again.
        return status.withLock { $0 }
    }

    /// The environment of this process, without `DISPLAY`, plus `extra`.
    public static func environment(_ extra: [String: String]) -> [String: String] {
        var merged = ProcessInfo.processInfo.environment
        merged.removeValue(forKey: "DISPLAY")
        return merged.merging(extra) { $1 }
    }
}
