import Foundation
import PodiumCore
@testable import PodiumWeb
import Testing

/// The viewer's token guard: wrong tokens from one address are answered one at a time, each after
/// the wait the ones before it earned, so guesses sent at once cost what guesses sent in turn do;
/// another address is not held up by them, nor an address's many requests with the right token.
/// The turns are read as the guard gives them: what the tasks' scheduling does on a busy machine
/// is not the guard's.
@Suite struct AccessGuardTests {
    static let token = "the-right-token-for-the-room"

    @Test func guessesSentAtOnceWaitInTurn() {
        let guarding = AccessGuard(token: Self.token)
        // Five wrong at once, none answered yet: three free, then 0.5 s, then 1 s after it.
        let turns = (0..<5).compactMap { _ in guarding.take(turnOf: "10.0.0.9", wrong: true).time }
        #expect(turns.count == 5)
        let gaps = zip(turns.dropFirst(), turns).map { Double($0 - $1) / 1e9 }
        #expect(gaps.count == 4 && gaps[2] >= 0.5 && gaps[3] >= 1, "\(gaps)")
        // Another address, wrong or right, is answered at once; the right token from the
        // guessing address waits its turn behind them.
        #expect(guarding.take(turnOf: "10.0.0.10", wrong: false) == .now)
        #expect((guarding.take(turnOf: "10.0.0.11", wrong: true).time ?? .max) <= MonotonicClock().now())
        #expect((guarding.take(turnOf: "10.0.0.9", wrong: false).time ?? 0) >= (turns.last ?? .max))
    }

    @Test func aGuessWhoseTurnIsHalfAMinuteAwayIsRefusedAtOnce() {
        let guarding = AccessGuard(token: Self.token)
        // 0 + 0 + 0 + 0.5 + 1 + 2 + 4 + 8 + 10 = 25.5 s; the next would be 35.5 s away.
        let turns = (0..<12).map { _ in guarding.take(turnOf: "10.0.0.9", wrong: true) }
        #expect(turns.prefix(9).allSatisfy { $0.time != nil }, "\(turns)")
        #expect(turns.dropFirst(9).allSatisfy { $0 == .refused }, "\(turns)")
        // The right token from there too: it would wait as long.
        #expect(guarding.take(turnOf: "10.0.0.9", wrong: false) == .refused)
    }

    @Test func theRightTokenIsNeverKeptWaiting() {
        let guarding = AccessGuard(token: Self.token)
        // A page, its stream and a remote's presses, all in flight at once.
        #expect((0..<12).allSatisfy { _ in guarding.take(turnOf: "10.0.0.9", wrong: false) == .now })
    }

    @Test func theWaitGrowsAndTheRightTokenEndsIt() async {
        #expect((0..<3).map(AccessGuard.penalty(after:)) == [0, 0, 0])
        #expect(AccessGuard.penalty(after: 3) == 500_000_000 && AccessGuard.penalty(after: 4) == 1_000_000_000)
        #expect(AccessGuard.penalty(after: 40) == 10_000_000_000)
        let guarding = AccessGuard(token: Self.token)
        for _ in 0..<4 { #expect(await !guarding.admits("wrong-wrong-wrong", from: "10.0.0.9")) }
        // Four wrong answered: the next one waits a second.
        let asked = MonotonicClock().now()
        #expect((guarding.take(turnOf: "10.0.0.9", wrong: true).time ?? 0) >= asked + 1_000_000_000)
        guarding.record(false, from: "10.0.0.9")
        #expect(await guarding.admits(Self.token, from: "10.0.0.9"))
        // Forgotten once the right one came.
        #expect(guarding.take(turnOf: "10.0.0.9", wrong: false) == .now)
    }
}

extension AccessGuard.Turn {
    var time: UInt64? {
        if case .at(let time) = self { time } else { nil }
    }
}
