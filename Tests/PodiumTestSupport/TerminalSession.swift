public import Foundation

/// A command run in a real terminal: a detached tmux session on a tmux server of its own, 100
/// columns wide. Keys go in with `tmux send-keys`; what the terminal shows comes back with
/// `capture-pane`. When the command ends, the shell that ran it writes the exit code and the
/// terminal's mode as `stty -a` says it, so a test can see that the terminal was put back.
/// The server is killed when the value is released.
public final class TerminalSession: Sendable {
    private let server: String
    private let folder: URL

    /// Starts `command` (a shell command line) in a new terminal.
    public init(_ command: String) throws {
        server = "podium-test-\(UUID().uuidString.prefix(8))"
        folder = try Tools.temporaryFolder()
        let after = "echo $? > \(folder.path)/code; stty -a > \(folder.path)/stty"
        let started = try Tools.run("tmux", ["-L", server, "new-session", "-d", "-x", "100", "-y", "30",
                                             "\(command); \(after); sleep 60"])
        guard started.status == 0 else { throw TestFailure("tmux would not start: \(started.stderr)") }
    }

    deinit {
        _ = try? Tools.run("tmux", ["-L", server, "kill-server"])
        try? FileManager.default.removeItem(at: folder)
    }

    /// Types `keys` as they are (`-l`), or a key by its tmux name (`C-c`).
    public func send(_ keys: String, literally: Bool = true) throws {
        _ = try Tools.run("tmux", ["-L", server, "send-keys", "-t", "0"] + (literally ? ["-l"] : []) + [keys])
    }

    /// What the terminal shows, with its scrollback.
    public var screen: String {
        (try? Tools.run("tmux", ["-L", server, "capture-pane", "-p", "-J", "-S", "-200", "-t", "0"]).stdout) ?? ""
    }

    /// Waits until the terminal shows `text` (`times` times).
    public func waitFor(_ text: String, times: Int = 1, timeout: TimeInterval = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while screen.components(separatedBy: text).count - 1 < times {
            guard Date() < deadline else { throw TestFailure("the terminal never showed '\(text)':\n\(screen)") }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// The process id of the command's program: the child of the terminal's shell named `name`.
    public func pid(of name: String) throws -> pid_t {
        let shell = try Tools.run("tmux", ["-L", server, "list-panes", "-F", "#{pane_pid}"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let child = try Tools.run("pgrep", ["-P", shell, "-x", name]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard let pid = pid_t(child) else { throw TestFailure("no \(name) under the terminal's shell \(shell)") }
        return pid
    }

    /// Waits for the command to end: its exit code, and the terminal's mode after it (`stty -a`).
    public func ending(timeout: TimeInterval = 30) throws -> (status: Int32, terminal: String) {
        let deadline = Date().addingTimeInterval(timeout)
        let stty = folder.appendingPathComponent("stty")
        while (try? String(contentsOf: stty, encoding: .utf8))?.isEmpty ?? true {
            guard Date() < deadline else { throw TestFailure("the command never ended:\n\(screen)") }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let code = try String(contentsOf: folder.appendingPathComponent("code"), encoding: .utf8)
        return (Int32(code.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1,
                try String(contentsOf: stty, encoding: .utf8))
    }
}
