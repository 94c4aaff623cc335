import PodiumCore
import PodiumCoreTesting
import Synchronization
import Testing

/// The extra screen's input as a network delivers it: no batch played twice, no key pressed
/// while the screen lacks the focus, nothing left held down.
@Suite struct InputSessionTests {
    /// Remembers what it played; the focus is where the test says, or each answer in turn.
    final class Player: InputInjector {
        let played = Mutex<[RemoteInput]>([])
        let focused = Atomic(true)
        let answers = Mutex<[Bool]>([])
        func play(_ events: [RemoteInput]) { played.withLock { $0 += events } }
        var keysReachTheScreen: Bool {
            answers.withLock { $0.isEmpty ? nil : $0.removeFirst() } ?? focused.load(ordering: .relaxed)
        }
        func take() -> [RemoteInput] { played.withLock { played in defer { played = [] }; return played } }
    }

    @Test func aBatchIsPlayedOnceAndInOrder() {
        let player = Player()
        let session = InputSession(player: player, clock: FakeClock())
        #expect(session.play(5, [.move(x: 0.5, y: 0.5)]) == .played)
        #expect(session.play(5, [.move(x: 0.1, y: 0.1)]) == .stale(last: 5), "the same batch again")
        #expect(session.play(4, [.move(x: 0.2, y: 0.2)]) == .stale(last: 5), "an older one")
        #expect(session.play(9, [.move(x: 0.3, y: 0.3)]) == .played)
        #expect(player.take() == [.move(x: 0.5, y: 0.5), .move(x: 0.3, y: 0.3)])
    }

    @Test func keysArePressedOnlyWhileTheScreenHasTheFocus() {
        let player = Player()
        let session = InputSession(player: player, clock: FakeClock())
        player.focused.store(false, ordering: .relaxed)
        #expect(session.play(1, [.key(0x61, down: true), .key(0x61, down: false), .button(1, down: true)]) == .played)
        #expect(player.take() == [.key(0x61, down: false), .button(1, down: true)], "no press; a release does no harm")
        player.focused.store(true, ordering: .relaxed)
        #expect(session.play(2, [.key(0x41, down: true)]) == .played)
        player.focused.store(false, ordering: .relaxed)
        // Its release goes wherever the focus went, named as the browser names it then (Shift let go first).
        #expect(session.play(3, [.key(0x61, down: false)]) == .played)
        #expect(player.take() == [.key(0x41, down: true), .key(0x61, down: false)])
    }

    @Test func theFocusIsAskedBeforeEveryPressOnceWhatCameBeforeWasPlayed() {
        let player = Player()
        let session = InputSession(player: player, clock: FakeClock())
        // Alt and Tab move the focus away (the desktop says so once they were played): p stays up.
        player.answers.withLock { $0 = [true, true, false] }
        _ = session.play(1, [.move(x: 0.5, y: 0.5), .key(0xFFE9, down: true), .key(0xFF09, down: true),
                             .key(0xFF09, down: false), .key(0x70, down: true)])
        #expect(player.take() == [.move(x: 0.5, y: 0.5), .key(0xFFE9, down: true), .key(0xFF09, down: true),
                                  .key(0xFF09, down: false)])
        #expect(player.answers.withLock { $0.isEmpty }, "asked three times")
    }

    @Test func whatIsHeldIsLetGoWhenThePageFallsQuietOrTheRunEnds() {
        let player = Player()
        let clock = FakeClock()
        let session = InputSession(player: player, clock: clock)
        _ = session.play(1, [.key(0xFFE1, down: true), .button(1, down: true), .key(0x61, down: true),
                             .key(0x61, down: false)])
        _ = player.take()
        clock.advance(by: 2_000_000_000)
        #expect(!session.fellQuietHolding)
        session.releaseIfQuiet()
        #expect(player.take().isEmpty, "2 s is not quiet")
        _ = session.play(2, [])
        clock.advance(by: 2_900_000_000)
        session.releaseIfQuiet()
        #expect(player.take().isEmpty, "an empty batch says the page is there")
        clock.advance(by: 100_000_000)
        #expect(session.fellQuietHolding)
        session.releaseIfQuiet()
        #expect(player.take() == [.key(0xFFE1, down: false), .button(1, down: false)])
        #expect(!session.fellQuietHolding)
        session.releaseIfQuiet()
        #expect(player.take().isEmpty, "let go once")
        _ = session.play(3, [.button(3, down: true)])
        _ = player.take()
        session.releaseAll()
        #expect(player.take() == [.button(3, down: false)])
    }
}
