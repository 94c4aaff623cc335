import Synchronization

/// The extra screen's input as its page sends it, played on `player` with three rules a network
/// needs: each batch is numbered higher than the last (a batch caught on the way and sent again is
/// refused); a key goes down only while the screen has the keyboard's focus, as far as the desktop
/// says (`InputInjector.keysReachTheScreen`), so typing on the tablet does not land in a window
/// on the presenter's own screen; and whatever is held down is let go when the page falls quiet (a
/// tab closed mid-drag) and when the run ends.
public final class InputSession: Sendable {
    public enum Outcome: Equatable, Sendable {
        case played
        /// Numbered no higher than `last`, a batch already played: nothing was played.
        case stale(last: UInt64)
    }

    private let player: any InputInjector
    private let clock: any PacingClock
    private struct State {
        var last: UInt64?
        var keys: Set<UInt32> = []
        var buttons: Set<Int> = []
    }
    private let state = Mutex(State())
    /// When the last batch came, and whether anything is held: read without the lock, so that a
    /// loop on the shared pool can ask whether there is anything to let go.
    private let lastBatch = Atomic<UInt64>(0)
    private let holding = Atomic(false)
    /// A page that holds something down says so at least this often (it sends an empty batch).
    public static let quiet: UInt64 = 3_000_000_000

    public init(player: any InputInjector, clock: any PacingClock) {
        self.player = player
        self.clock = clock
    }

    /// Plays batch `number`'s `events`, unless a batch numbered as high was played before. Before
    /// each key goes down, what came before it is played (the pointer moved there, a click, a key
    /// that moved the focus) and the desktop is asked whether keys reach the screen; when they do
    /// not, that press is left out. Every release is played: a key's release may name it otherwise
    /// than its press did (Shift let go first), and the release of a key that is up does nothing.
    public func play(_ number: UInt64, _ events: [RemoteInput]) -> Outcome {
        state.withLock { state in
            if let last = state.last, number <= last { return .stale(last: last) }
            state.last = number
            lastBatch.store(clock.now(), ordering: .relaxed)
            var pending: [RemoteInput] = []
            for event in events {
                switch event {
                case .move:
                    break
                case .button(let button, let down):
                    if down { state.buttons.insert(button) } else { state.buttons.remove(button) }
                case .key(let key, true):
                    if !pending.isEmpty { player.play(pending) }
                    pending = []
                    guard player.keysReachTheScreen else { continue }
                    state.keys.insert(key)
                case .key(let key, false):
                    state.keys.remove(key)
                }
                pending.append(event)
            }
            if !pending.isEmpty { player.play(pending) }
            holding.store(!state.keys.isEmpty || !state.buttons.isEmpty, ordering: .relaxed)
            return .played
        }
    }

    /// Whether something is held and no batch came for `quiet`: a look, without the lock.
    public var fellQuietHolding: Bool {
        holding.load(ordering: .relaxed) && clock.now() >= lastBatch.load(ordering: .relaxed) + Self.quiet
    }

    /// Lets go of what is held when no batch came for `quiet` (asked again under the lock, where no
    /// batch comes between the question and the release).
    public func releaseIfQuiet() {
        state.withLock { state in
            guard clock.now() >= lastBatch.load(ordering: .relaxed) + Self.quiet else { return }
            release(&state)
        }
    }

    /// Lets go of every key and button held down: the page is gone, or the run ends.
    public func releaseAll() {
        state.withLock { release(&$0) }
    }

    private func release(_ state: inout State) {
        let releases = state.keys.sorted().map { RemoteInput.key($0, down: false) }
            + state.buttons.sorted().map { RemoteInput.button($0, down: false) }
        (state.keys, state.buttons) = ([], [])
        holding.store(false, ordering: .relaxed)
        if !releases.isEmpty { player.play(releases) }
    }
}
