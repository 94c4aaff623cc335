import Foundation
import Synchronization

/// The live statistics line: on a terminal one line rewritten in place, never wider than the
/// terminal (read at each update, and again when the terminal is resized); otherwise plain lines.
enum StatsLine {
    /// Makes the line for a width in columns, or for no terminal (`nil`).
    typealias Render = @Sendable (_ width: Int?) -> String

    /// The line on screen, kept to be drawn again at a new width.
    private static let shown = Mutex<Render?>(nil)

    /// - Parameter invocation: whose stderr: the current one, unless shown from a thread of the
    ///   command's own.
    static func show(_ text: String, in invocation: Invocation = .current) {
        show(in: invocation) { _ in text }
    }

    static func show(in invocation: Invocation = .current, _ render: @escaping Render) {
        guard invocation.ownsTerminal, invocation.isTerminal else {
            invocation.standardError.write(render(nil) + "\n")
            return
        }
        shown.withLock { $0 = render }
        draw(render)
    }

    /// Draws the line again at the terminal's new width (on SIGWINCH).
    static func redraw() {
        guard let render = shown.withLock({ $0 }) else { return }
        draw(render)
    }

    /// Ends the in-place line so the next message starts on a line of its own.
    static func clear() {
        let wasShowing = shown.withLock { state in
            defer { state = nil }
            return state != nil
        }
        if wasShowing { Console.write("\r\u{1B}[K") }
    }

    private static func draw(_ render: Render) {
        Console.write("\r\u{1B}[K" + render(Console.width))
    }
}
