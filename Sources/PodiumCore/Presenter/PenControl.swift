import Synchronization

/// The presenter's pen (`d`, Ctrl+Alt+D, `podium control pen`): on or off, the ink and shape it
/// draws with, and what it drew. Set by the keys and by the pen's input (the overlay window on
/// the presenter's screen), read by whatever shows the strokes. Thread-safe.
public final class PenControl: Sendable {
    /// What the pen is now.
    public struct State: Sendable, Equatable {
        public var isOn = false
        public var ink = PenDrawing.Ink.red
        public var shape = PenDrawing.Shape.freehand
        public var drawing = PenDrawing()
        /// Counts every change, so a reader sees one without comparing the strokes.
        public var version = 0
    }

    /// Strokes stay when the pen goes off (`--pen-keep`), until `e` erases them.
    public let keepsStrokes: Bool
    /// Why the pen cannot be had on this run's desktop; `nil` when it can.
    public let unavailable: String?
    private let state = Mutex(State())

    public init(keepsStrokes: Bool = false, unavailable: String? = nil) {
        self.keepsStrokes = keepsStrokes
        self.unavailable = unavailable
    }

    /// The pen now.
    public var now: State { state.withLock { $0 } }

    public var isOn: Bool { state.withLock { $0.isOn } }

    /// Turns the pen on or off; off, the strokes go unless they are kept.
    /// - Returns: whether it was on before.
    @discardableResult
    public func set(on: Bool) -> Bool {
        change { state in
            let before = state.isOn
            state.isOn = on
            if !on {
                state.drawing.end()
                if !keepsStrokes { state.drawing.erase() }
            }
            return before
        }
    }

    /// Changes the pen (its ink, its shape, its strokes) under its lock.
    public func change<Result>(_ body: (inout State) -> Result) -> Result {
        state.withLock { state in
            defer { state.version &+= 1 }
            return body(&state)
        }
    }
}
