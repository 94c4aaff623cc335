import Foundation
import Synchronization

/// One run of the program: where it speaks (stderr and stdout), whether that is a terminal, and
/// the stop it is asked for. The process's own is `process` (its descriptors, its signals through
/// `SignalTrap`); a test runs a command inside its own process with one of its own, which keeps
/// what the command says and is stopped by a call, so several run side by side.
///
/// The running command finds its invocation in `current`, a task-local value: the command's tasks
/// (and unstructured tasks they start) see it; a thread of the command's own is handed what it
/// needs (a logger whose handler holds the invocation, a closure).
///
/// Thread-safe.
public final class Invocation: Sendable {
    /// Where the command speaks, and prints what was asked for (`--stats-json -`, `--json`).
    let standardError: TextOutput
    let standardOutput: TextOutput
    /// Whether stderr is a terminal, where the stats line is rewritten in place.
    let isTerminal: Bool
    /// The width when stderr is not the process's (a terminal's is read at each use).
    private let columns: Int?
    /// The control socket's name in its folder: the process id, with a number of the run's own
    /// for a run inside another program, whose id it shares.
    let controlName: String
    /// The podium program, for a command that starts another of itself (`bench` its scene).
    let executable: String
    /// Where the desktop, its sound and the user's folders are said (`DISPLAY`, `WAYLAND_DISPLAY`,
    /// `PULSE_SERVER`, `XDG_CONFIG_HOME`): the process's, or a run's own inside another program. The
    /// command hands it to the libraries, which read no environment of their own.
    public let environment: [String: String]
    /// Run on the first stop request; `nil` once it came.
    private let stopHandlers = Mutex<[@Sendable () -> Void]?>([])

    private static let runs = Atomic<Int>(0)

    /// An invocation inside another program: what the command says goes to `standardError` and
    /// `standardOutput`, as if to a pipe (no terminal) `columns` wide.
    /// - Parameters:
    ///   - executable: the podium program a command starts another of itself from.
    ///   - environment: the run's own, as a process started with it would have.
    public convenience init(executable: String, environment: [String: String], columns: Int = 80,
                            standardError: @escaping @Sendable (String) -> Void,
                            standardOutput: @escaping @Sendable (String) -> Void) {
        let number = Self.runs.add(1, ordering: .relaxed).newValue
        self.init(standardError: TextOutput(name: "stderr", keep: standardError),
                  standardOutput: TextOutput(name: "stdout", keep: standardOutput), isTerminal: false,
                  columns: columns, controlName: "\(getpid()).\(number)", executable: executable,
                  environment: environment)
    }

    private init(standardError: TextOutput, standardOutput: TextOutput, isTerminal: Bool, columns: Int?,
                 controlName: String, executable: String, environment: [String: String]) {
        self.standardError = standardError
        self.standardOutput = standardOutput
        self.isTerminal = isTerminal
        self.columns = columns
        self.controlName = controlName
        self.executable = executable
        self.environment = environment
    }

    /// The process's own: its stderr and stdout, stopped by signals.
    public static let process = Invocation(
        standardError: .standardError, standardOutput: .standardOutput, isTerminal: isatty(STDERR_FILENO) != 0,
        columns: nil, controlName: "\(getpid())",
        executable: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first ?? "podium",
        environment: ProcessInfo.processInfo.environment)

    /// The invocation the running command belongs to.
    @TaskLocal static var current = Invocation.process

    /// The width in columns to wrap to, read now (a terminal changes when its window is resized):
    /// from the terminal itself, else `$COLUMNS`, else 80.
    var width: Int {
        if let columns { return columns }
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return environment["COLUMNS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } ?? 80
    }

    /// Where a run's control socket is (`podium control --socket`).
    public var controlSocket: String { "\(ControlAddress.directory)/\(controlName).sock" }

    /// Whether the command runs in the process's own terminal: its keys are the command's to read.
    var ownsTerminal: Bool { self === Invocation.process }

    /// Asks the command to stop as the first Ctrl-C does: every output finalized. Handlers that
    /// come later run at once.
    public func stop() {
        let handlers = stopHandlers.withLock { handlers in
            defer { handlers = nil }
            return handlers ?? []
        }
        handlers.forEach { $0() }
    }

    /// Whether a stop was asked for (for waits that come before the run, such as the desktop's dialog).
    var stopRequested: Bool { stopHandlers.withLock { $0 == nil } }

    /// Runs `handler` on the first stop request, or now when one came already (while starting).
    func onStop(_ handler: @escaping @Sendable () -> Void) {
        let already = stopHandlers.withLock { handlers in
            handlers?.append(handler)
            return handlers == nil
        }
        if already { handler() }
    }
}
