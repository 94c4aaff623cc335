import Foundation
import PodiumCore
import Synchronization

/// SIGINT, SIGTERM, SIGHUP (a terminal or SSH session closed) and SIGQUIT, for the whole process
/// (and SIGWINCH, which only redraws the stats line): they stop `Invocation.process`.
///
/// Installed first thing in `main`, before anything is opened, so a signal that comes while Podium
/// is still starting is kept, not lost: the run that starts later stops at once. The first signal
/// asks for a clean stop (every output finalized, exit 0); a second one within a second of it is
/// the same request (terminals and `timeout` often deliver two); a later one quits at once
/// (128 + the signal's number: 130 for Ctrl-C). A command that cannot stop cleanly quits at the
/// first.
///
/// The handler only writes the signal's number to a pipe (what a handler may safely do); a thread
/// of the trap's own reads it and acts.
enum SignalTrap {
    private static let signals: [(number: Int32, name: String)] = [
        (SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGQUIT, "SIGQUIT"),
    ]
    /// A second signal this soon after the first is taken for the same request.
    private static let repeatWindow: UInt64 = 1_000_000_000

    private struct State {
        /// Whether the command stops cleanly; until it says, a request is kept for it.
        var stopsCleanly: Bool?
        /// When the first request came, on the monotonic clock.
        var requested: UInt64?
        /// The first signal, while it waits for the command to say how it stops.
        var pending: Int32?
    }

    private static let state = Mutex(State())
    private static let clock = MonotonicClock()

    /// Starts trapping. Call once, first thing in `main`.
    static func install() {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let readEnd = ends[0]
        signalPipeWriteEnd.store(ends[1], ordering: .relaxed)
        Thread.detachNamed("podium-signals") { readSignals(from: readEnd) }
        // A resized terminal gets the stats line again at its new width.
        for number in signals.map(\.number) + (Invocation.process.isTerminal ? [SIGWINCH] : []) {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let saved = errno
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalPipeWriteEnd.load(ordering: .relaxed), &byte, 1)
                errno = saved
            }
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
        // A reader that went away (`| head`) is a failed write to handle, not a reason to die.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Says whether the running command stops cleanly on a signal (a pipeline) or should simply
    /// quit (a query such as `podium displays`). A request that came before is acted on now.
    static func commandStopsCleanly(_ stopsCleanly: Bool) {
        let pending = state.withLock { state in
            state.stopsCleanly = stopsCleanly
            defer { state.pending = nil }
            return state.pending
        }
        guard let pending else { return }
        guard stopsCleanly else { _exit(128 + pending) }
        announceStop(pending)
        Invocation.process.stop()
    }

    private static func readSignals(from descriptor: Int32) {
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return }
            received(Int32(byte))
        }
    }

    private static func name(_ number: Int32) -> String {
        signals.first { $0.number == number }?.name ?? "signal \(number)"
    }

    private static func announceStop(_ number: Int32) {
        let again = number == SIGINT ? "press Ctrl-C again" : "send it again"
        StatsLine.clear()
        Invocation.process.say("\(name(number)): stopping; \(again) to quit at once")
    }

    private static func received(_ number: Int32) {
        if number == SIGWINCH { return StatsLine.redraw() }
        let now = clock.now()
        enum Action { case stop(cleanly: Bool), keep, ignore, quit }
        let action = state.withLock { state -> Action in
            guard let first = state.requested else {
                state.requested = now
                guard let stopsCleanly = state.stopsCleanly else {
                    state.pending = number
                    return .keep
                }
                return .stop(cleanly: stopsCleanly)
            }
            return now - first < repeatWindow ? .ignore : .quit
        }
        switch action {
        case .stop(cleanly: true):
            announceStop(number)
            Invocation.process.stop()
        case .stop(cleanly: false):
            TerminalKeys.restore()
            _exit(128 + number)
        case .keep, .ignore:
            break
        case .quit:
            StatsLine.clear()
            Invocation.process.say("\(name(number)) again: quitting without finalizing outputs")
            TerminalKeys.restore()
            _exit(128 + number)
        }
    }
}

/// Where the signal handler writes; a global, as a C signal handler can capture nothing.
private let signalPipeWriteEnd = Atomic<Int32>(-1)
