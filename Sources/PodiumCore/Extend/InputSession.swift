import Synchronization

/// The extra screen's input as its page sends it, played on `player` with three rules a network
/// needs: each batch is numbered higher than the last (a batch caught on the way and sent again is
/// refused); a key goes down only while the screen has the keyboard's focus (typing on the tablet
/// never lands in a window on the presenter's own screen); and whatever is held down is let go
/// when the page falls quiet (a tab closed mid-drag) and when the run ends.
public final class InputSession: Sendable {
    public enum Outcome: Equatable, Sendable {
        case played
        /// Numbered no higher than a batch already played: nothing was played.
        case stale
    }

    private let player: any InputInjector
    private let clock: any PacingClock
    private struct State {
        var last: UInt64?
        var keys: Set<UInt32> = []
        var buttons: Set<Int> = []
        var lastBatch: UInt64 = 0
    }
    private let state = Mutex(State())
    /// A page that holds something down says so at least this often (it sends an empty batch).
    public static let quiet: UInt64 = 3_000_000_000

    public init(player: any InputInjector, clock: any PacingClock) {
        self.player = player
        self.clock = clock
    }

    /// Plays batch `number`'s `events`, unless a batch numbered as high was played before; keys
    /// pressed while the screen does not have the focus are left out (their releases are not).
    /// Whether it has is asked once a batch, at its first key press, once what comes before it
    /// (the pointer moved there, a click) was played.
    public func play(_ number: UInt64, _ events: [RemoteInput]) -> Outcome {
        state.withLock { state in
            if let last = state.last, number <= last { return .stale }
            state.last = number
            state.lastBatch = clock.now()
            var focused: Bool?
            var played: [RemoteInput] = []
            for event in events {
                switch event {
                case .move:
                    played.append(event)
                case .button(let button, let down):
                    if down { state.buttons.insert(button) } else { state.buttons.remove(button) }
                    played.append(event)
                case .key(let key, true):
                    if focused == nil {
                        if !played.isEmpty { player.play(played) }
                        played = []
                        focused = player.keysReachTheScreen
                    }
                    guard focused == true else { continue }
                    state.keys.insert(key)
                    played.append(event)
                case .key(let key, false):
                    guard state.keys.remove(key) != nil else { continue }
                    played.append(event)
                }
            }
            if !played.isEmpty { player.play(played) }
            return .played
        }
    }

    /// Lets go of what is held when no batch came for `quiet`; the server asks four times a second.
    public func releaseIfQuiet() {
        guard state.withLock({ clock.now() - $0.lastBatch >= Self.quiet }) else { return }
        releaseAll()
    }

    /// Lets go of every key and button held down: the page is gone, or the run ends.
    public func releaseAll() {
        state.withLock { state in
            let releases = state.keys.sorted().map { RemoteInput.key($0, down: false) }
                + state.buttons.sorted().map { RemoteInput.button($0, down: false) }
            (state.keys, state.buttons) = ([], [])
            if !releases.isEmpty { player.play(releases) }
        }
    }
}
