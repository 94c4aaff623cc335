import Foundation
import PodiumCore
@testable import PodiumWeb
import Testing

/// The viewer's token guard: wrong tokens from one address are answered one at a time, each after
/// the wait the ones before it earned, so guesses sent at once cost what guesses sent in turn do;
/// another address is not held up by them, nor an address's many requests with the right token.
@Suite struct AccessGuardTests {
    @Test func guessesSentAtOnceWaitInTurn() async {
        let guarding = AccessGuard(token: "the-right-token-for-the-room")
        let clock = MonotonicClock()
        let start = clock.now()
        // Five wrong at once: three free, then 0.5 s, then 1 s after it (1.5 s in all). Answered
        // side by side, as they were, the last would come after 1 s.
        let admitted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<5 { group.addTask { await guarding.admits("a-wrong-guess-at-it", from: "10.0.0.9") } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        let took = Double(clock.now() - start) / 1e9
        #expect(admitted == Array(repeating: false, count: 5))
        #expect(took >= 1.45, "five guesses at once answered in \(took) s")

        let other = clock.now()
        #expect(await guarding.admits("the-right-token-for-the-room", from: "10.0.0.10"))
        #expect(await !guarding.admits("another-wrong-guess", from: "10.0.0.11"))
        #expect(Double(clock.now() - other) / 1e9 < 1, "other addresses wait for nothing")
    }

    @Test func theRightTokenIsNeverKeptWaiting() async {
        let guarding = AccessGuard(token: "the-right-token-for-the-room")
        let clock = MonotonicClock()
        let start = clock.now()
        // A page, its stream and a remote's presses, all in flight at once.
        let admitted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<12 {
                group.addTask { await guarding.admits("the-right-token-for-the-room", from: "10.0.0.9") }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(admitted == Array(repeating: true, count: 12))
        #expect(Double(clock.now() - start) / 1e9 < 0.4)
    }

    @Test func theWaitGrowsAndTheRightTokenEndsIt() async {
        #expect((0..<3).map(AccessGuard.penalty(after:)) == [0, 0, 0])
        #expect(AccessGuard.penalty(after: 3) == 500_000_000 && AccessGuard.penalty(after: 4) == 1_000_000_000)
        #expect(AccessGuard.penalty(after: 40) == 10_000_000_000)
        let guarding = AccessGuard(token: "the-right-token-for-the-room")
        for _ in 0..<2 { _ = await guarding.admits("wrong-wrong-wrong", from: "10.0.0.9") }
        #expect(await guarding.admits("the-right-token-for-the-room", from: "10.0.0.9"))
        let clock = MonotonicClock()
        let start = clock.now()
        // Forgotten once the right one came: three more wrong ones are free again.
        for _ in 0..<3 { _ = await guarding.admits("wrong-wrong-wrong", from: "10.0.0.9") }
        #expect(Double(clock.now() - start) / 1e9 < 0.4)
    }
}
