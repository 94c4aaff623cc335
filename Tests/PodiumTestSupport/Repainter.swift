import Foundation
import Synchronization

/// Draws a picture on a display's root window again and again, as a program that repaints its
/// window does: the X server reports damage every time, though only what the test changes with
/// `set` differs. Runs on a thread of its own until `stop`.
public final class Repainter: Sendable {
    private struct State {
        var picture: TestPattern
        var running = true
        var draws = 0
        /// Changes made with `set`, and how many of them the last finished draw showed.
        var changes = 0
        var changesDrawn = 0
        var failure: String?
    }

    private let state: Mutex<State>
    private let finished = DispatchSemaphore(value: 0)

    /// Starts repainting `picture` on `display` `perSecond` times a second.
    public init(display: String, picture: TestPattern, perSecond: Int) {
        state = Mutex(State(picture: picture))
        let interval = 1.0 / Double(perSecond)
        let thread = Thread { [self] in
            defer { finished.signal() }
            let painter: Painter
            do {
                painter = try Painter(display: display)
            } catch {
                state.withLock { $0.failure = "\(error)" }
                return
            }
            var next = Date()
            while case let (picture, changes)? = state.withLock({ $0.running ? ($0.picture, $0.changes) : nil }) {
                do {
                    try painter.draw(picture)
                } catch {
                    state.withLock { $0.failure = "\(error)" }
                    return
                }
                state.withLock { state in
                    state.draws += 1
                    state.changesDrawn = changes
                }
                next += interval
                Thread.sleep(until: next)
            }
        }
        thread.start()
    }

    /// Sets one pixel of the picture, and returns once a repaint shows it. A repaint is drawn in
    /// strips, and a grab between two strips shows the new picture above and the old below: waiting
    /// keeps two repaints from differing by more than this change, so that a grab sees one or the
    /// other and a later change is never seen without an earlier one.
    public func set(x: Int, y: Int, bgra: (UInt8, UInt8, UInt8)) async throws {
        let change = state.withLock { state in
            var bytes = state.picture.bgra
            let offset = (y * state.picture.width + x) * 4
            bytes[offset] = bgra.0
            bytes[offset + 1] = bgra.1
            bytes[offset + 2] = bgra.2
            state.picture = TestPattern(width: state.picture.width, height: state.picture.height, bgra: bytes)
            state.changes += 1
            return state.changes
        }
        while true {
            let (drawn, failure) = state.withLock { ($0.changesDrawn, $0.failure) }
            if drawn >= change { return }
            if let failure { throw TestFailure("repainting failed: \(failure)") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// How many times the picture was drawn so far.
    public var draws: Int { state.withLock { $0.draws } }

    /// Stops repainting and waits for the last draw.
    /// - Throws: what stopped the drawing early, if anything did.
    public func stop() throws {
        state.withLock { $0.running = false }
        finished.wait()
        if let failure = state.withLock({ $0.failure }) { throw TestFailure("repainting failed: \(failure)") }
    }
}
