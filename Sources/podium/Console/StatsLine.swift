import Foundation
import Synchronization

/// The live statistics line: on a terminal one line rewritten in place, otherwise plain lines.
enum StatsLine {
    private static let showing = Mutex(false)

    static func show(_ text: String) {
        if Console.isTerminal {
            showing.withLock { $0 = true }
            Console.write("\r\u{1B}[K" + text)
        } else {
            Console.write(text + "\n")
        }
    }

    /// Ends the in-place line so the next message starts on a line of its own.
    static func clear() {
        let wasShowing = showing.withLock { state in
            defer { state = false }
            return state
        }
        if wasShowing { Console.write("\r\u{1B}[K") }
    }
}
