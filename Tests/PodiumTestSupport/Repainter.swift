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
            while let picture = state.withLock({ $0.running ? $0.picture : nil }) {
                do {
                    try painter.draw(picture)
                } catch {
                    state.withLock { $0.failure = "\(error)" }
                    return
                }
                state.withLock { $0.draws += 1 }
                next += interval
                Thread.sleep(until: next)
            }
        }
        thread.start()
    }

    /// Sets one pixel of the picture, shown from the next repaint on.
    public func set(x: Int, y: Int, bgra: (UInt8, UInt8, UInt8)) {
        state.withLock { state in
            var bytes = state.picture.bgra
            let offset = (y * state.picture.width + x) * 4
            bytes[offset] = bgra.0
            bytes[offset + 1] = bgra.1
            bytes[offset + 2] = bgra.2
            state.picture = TestPattern(width: state.picture.width, height: state.picture.height, bgra: bytes)
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
