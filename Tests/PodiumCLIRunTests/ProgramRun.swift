import Foundation
import PodiumCLI
import PodiumTestSupport
import Synchronization
import Testing

/// A podium command run inside the test process, as the program runs it (`PodiumProgram.run`):
/// what it says on stderr and stdout is kept, and `interrupt()` stops it as a first Ctrl-C would.
/// The command's tasks run on threads of the runs' own (`ProgramExecutor`): a test beside it that
/// blocks a cooperative thread (waiting for ffprobe) does not hold it up.
final class ProgramRun: Sendable {
    private let arguments: [String]
    private let invocation: Invocation
    private let said = Said()
    /// The exit code, once the command has ended.
    private let ended = Mutex<Int32?>(nil)

    /// What the command said so far.
    private final class Said: Sendable {
        let text = Mutex((stderr: "", stdout: ""))
    }

    private init(_ arguments: [String], environment: [String: String]) {
        self.arguments = arguments
        invocation = Invocation(executable: Tools.podium.path, environment: environment,
                                standardError: { [said] text in said.text.withLock { $0.stderr += text } },
                                standardOutput: { [said] text in said.text.withLock { $0.stdout += text } })
    }

    /// Starts `podium` with `arguments` (the program's own name left out).
    /// - Parameters:
    ///   - display: the X display, as `--display` after the command's name (a process's
    ///     `$DISPLAY`: a run inside the tests' process has none).
    ///   - environment: more of the run's own (a sound server's `PULSE_SERVER`), over the tests'
    ///     process's without its desktop (`DISPLAY`, `WAYLAND_DISPLAY`).
    static func start(_ arguments: [String], display: String? = nil, environment more: [String: String] = [:])
        -> ProgramRun {
        let arguments = display.map { Array(arguments.prefix(1)) + ["--display", $0] + arguments.dropFirst() }
            ?? arguments
        let environment = ProcessInfo.processInfo.environment
            .filter { !["DISPLAY", "WAYLAND_DISPLAY"].contains($0.key) }.merging(more) { $1 }
        let run = ProgramRun(arguments, environment: environment)
        Task(executorPreference: ProgramExecutor.runs) { [invocation = run.invocation] in
            let status = await PodiumProgram.run(arguments, as: invocation)
            run.ended.withLock { $0 = status }
        }
        return run
    }

    /// Runs `podium` with `arguments` to its end.
    static func podium(_ arguments: [String], display: String? = nil, environment: [String: String] = [:],
                       timeout: TimeInterval = 60) async throws -> CommandResult {
        try await start(arguments, display: display, environment: environment).wait(timeout: timeout)
    }

    /// Streams from a source into `recording` with `arguments`, takes the source away with
    /// `lose` 2 s into capture, and waits for the run to end.
    /// - Returns: how the run ended, and whether ffmpeg decodes the recording without a word.
    static func streamLosingTheSource(_ arguments: [String], recording: String, environment: [String: String] = [:],
                                      lose: () throws -> Void) async throws -> (result: CommandResult, decodes: Bool) {
        let run = start(["stream"] + arguments + ["--to", recording], environment: environment)
        try await run.waitForStderr(containing: "capturing")
        try await Task.sleep(for: .seconds(2))
        try lose()
        return (try await run.wait(timeout: 20), try Tools.decodesCleanly(recording))
    }

    /// The run's control socket, for `podium control --socket`.
    var controlSocket: String { invocation.controlSocket }

    var stderrSoFar: String { said.text.withLock { $0.stderr } }
    var stdoutSoFar: String { said.text.withLock { $0.stdout } }
    var isRunning: Bool { ended.withLock { $0 == nil } }

    /// Waits until stderr contains `text` (`times` times).
    func waitForStderr(containing text: String, times: Int = 1, timeout: TimeInterval = 20) async throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while stderrSoFar.components(separatedBy: text).count - 1 < times {
            guard ContinuousClock.now < deadline, isRunning else {
                throw TestFailure("never said '\(text)'; stderr: \(stderrSoFar)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Asks for a stop as Ctrl-C does, without waiting for the end (a test's `defer`).
    func stop() { invocation.stop() }

    /// A stop as Ctrl-C asks it, and the end that follows.
    func interrupt(timeout: TimeInterval = 20) async throws -> CommandResult {
        invocation.stop()
        return try await wait(timeout: timeout)
    }

    /// Waits for the end; after `timeout`, asks the command to stop and fails.
    func wait(timeout: TimeInterval = 60) async throws -> CommandResult {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while isRunning {
            guard ContinuousClock.now < deadline else {
                invocation.stop()
                throw TestFailure(
                    "podium \(arguments.joined(separator: " ")) ran past \(timeout) s; stderr: \(stderrSoFar)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let (status, said) = (ended.withLock { $0 } ?? 0, said.text.withLock { $0 })
        return CommandResult(status: status, stdout: said.stdout, stderr: said.stderr)
    }
}

/// Threads of their own for the commands the tests run, and for the tests that run them: a task
/// started with one of these executors as its preference, and its child tasks, run there rather
/// than on the cooperative pool, which is as wide as the machine (two threads here) and which the
/// tests beside them hold (a refusal's parse takes a second of a core in a debug build).
final class ProgramExecutor: TaskExecutor {
    /// The commands'.
    static let runs = ProgramExecutor(threads: 4)
    /// The tests': a test waiting for a tool it started (ffprobe, xdotool) holds one.
    static let tests = ProgramExecutor(threads: 4)

    private let jobs = Mutex<[UnownedJob]>([])
    private let queued = DispatchSemaphore(value: 0)

    private init(threads: Int) {
        for _ in 0..<threads { Thread.detachNewThread { [self] in work() } }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        queued.signal()
    }

    private func work() {
        while true {
            queued.wait()
            guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// A suite whose tests run on threads of their own (`ProgramExecutor.tests`), beside the runs they
/// judge: a test that waits 2 s before its next key wakes on time, though the tests beside it
/// hold the cooperative pool.
struct ProgramThreads: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(ProgramExecutor.tests) { try await function() }
    }
}

extension Trait where Self == ProgramThreads {
    static var programThreads: Self { Self() }
}
