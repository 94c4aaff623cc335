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
    /// Rung at every change, for whatever shows the strokes to sleep until one.
    public let changed = Doorbell()

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
        defer { changed.ring() }
        return state.withLock { state in
            defer { state.version &+= 1 }
            return body(&state)
        }
    }
}

extension PenControl {
    /// The pen's button went down at `point` (in the captured area's pixels): a stroke begins there
    /// in the ink and shape chosen, while the pen is on.
    public func pressed(at point: PixelPoint) {
        change { state in
            guard state.isOn else { return }
            state.drawing.begin(at: point, ink: state.ink, shape: state.shape)
        }
    }

    /// The pointer moved to `point` with the button held.
    public func moved(to point: PixelPoint) {
        change { $0.drawing.extend(to: point) }
    }

    /// The button went up.
    public func released() {
        change { $0.drawing.end() }
    }

    /// A key pressed while the pen holds the keyboard, as its X keysym (X11 and xkbcommon share
    /// them): `r`, `g`, `b`, `y` choose the ink, `a` an arrow, `s` a rectangle (square), `f` a
    /// freehand path; `e` erases everything, Ctrl+Z the last stroke.
    /// - Returns: whether the key ends pen mode (Escape, `d`), which the caller tells the run.
    public func typed(keysym: UInt32, control: Bool) -> Bool {
        let escape: UInt32 = 0xFF1B
        guard keysym != escape else { return true }
        guard keysym < 0x80, let scalar = Unicode.Scalar(keysym) else { return false }
        let letter = Character(scalar)
        guard letter != "d" else { return true }
        change { state in
            if control {
                if letter == "z" { state.drawing.undo() }
            } else if let ink = PenDrawing.Ink(key: letter) {
                state.ink = ink
            } else {
                switch letter {
                case "a": state.shape = .arrow
                case "s": state.shape = .rectangle
                case "f": state.shape = .freehand
                case "e": state.drawing.erase()
                default: break
                }
            }
        }
        return false
    }
}

/// The pen's overlay on the presenter's own screen (a shaped X11 window, a Wayland layer surface),
/// which the capture then has in every output. Made on, and run by, a thread of its own.
public protocol PenSurface: AnyObject {
    /// Shows the pen's strokes and takes its input while it is on, until `isStopping` says so or
    /// the desktop goes away.
    /// - Parameters:
    ///   - said: a line to say (a keyboard another program holds).
    ///   - leave: ends pen mode (Escape), as the run's control says it.
    /// - Returns: why it stopped early (the display closed), or `nil` when asked to.
    func run(isStopping: () -> Bool, said: (String) -> Void, leave: @escaping () -> Void) -> String?
}
