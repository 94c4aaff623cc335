import Foundation
import PodiumCore
import Synchronization

/// Single keys from the terminal Podium runs in, acted on at once (no Enter): the map the mirror
/// window answers to (`KeyCommand`). Only when stdin is a terminal and Podium is its foreground
/// job: never for a pipe, a service or CI, and a background job (`podium … &`) leaves the
/// terminal alone; nor for a command run inside another program (`Invocation`).
///
/// The terminal is put back as it was when the run ends, however it ends: normally, on a signal
/// (the run stops and returns here), on a second signal that quits at once (`SignalTrap` calls
/// `restore()`), and at exit. Ctrl-C still sends SIGINT: only line editing and echo are off.
enum TerminalKeys {
    /// The terminal's settings before keys were turned on; `nil` while they are off.
    private static let saved = Mutex<termios?>(nil)

    /// Reads keys for `run` on a thread of its own until the run stops, when stdin is a terminal
    /// in the foreground.
    static func start(for run: Run) {
        guard Invocation.current.ownsTerminal, isatty(STDIN_FILENO) != 0,
              tcgetpgrp(STDIN_FILENO) == getpgrp() else { return }
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return }
        var raw = settings
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        // One byte is a key: read returns as soon as it comes.
        withUnsafeMutableBytes(of: &raw.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return }
        saved.withLock { $0 = settings }
        atexit { TerminalKeys.restore() }
        Thread.detachNamed("podium-keys") { read(for: run) }
    }

    /// Puts the terminal back as it was; nothing when keys were never turned on. Safe to call
    /// more than once, from any thread.
    static func restore() {
        guard var settings = saved.withLock({ state -> termios? in
            defer { state = nil }
            return state
        }) else { return }
        _ = tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }

    private static func read(for run: Run) {
        var bytes = [UInt8](repeating: 0, count: 16)
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        while !run.isStopping {
            // Woken now and then to see that the run stopped.
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            let count = bytes.withUnsafeMutableBytes { Foundation.read(STDIN_FILENO, $0.baseAddress, $0.count) }
            // The terminal is gone (end of file, a hang-up): no more keys.
            guard count > 0 else { return }
            // An escape sequence (an arrow key) comes in one read; Escape alone is one byte.
            if bytes[0] == 0x1B {
                if count == 1 { run.control.perform(.quit) }
                continue
            }
            for index in 0..<count {
                let key = bytes[index] == 0x20 ? "space" : String(UnicodeScalar(bytes[index]))
                guard let command = KeyCommand(key: key), command != .fullscreen else { continue }
                run.control.perform(command)
            }
        }
    }
}
