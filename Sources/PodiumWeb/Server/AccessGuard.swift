import PodiumCore
import Synchronization

/// Who may watch: the token, compared in constant time, and a growing wait for an address that
/// keeps offering a wrong one, so guessing it is slow. Once an address has offered a wrong one, its
/// requests are answered one at a time, each after the wait the wrong ones before it earned, so
/// guesses sent at once wait in turn; an address that offered none is answered at once, however
/// many requests it has in flight (a page, its stream, a remote's presses). A request whose turn
/// is more than half a minute away is refused at once, its token unread: waiting, it would hold
/// its connection.
final class AccessGuard: Sendable {
    /// The token every request must carry; `nil` when access is open (`?token=off`, loopback).
    let token: String?
    private struct Failures {
        /// Wrong tokens so far, and when the last was answered.
        var count = 0
        var last: UInt64 = 0
        /// Wrong tokens waiting for their turn: each counts toward the wait of those after it.
        var pending = 0
        /// When the address's latest request is answered: the next waits for it.
        var turn: UInt64 = 0
    }
    private let failures = Mutex<[String: Failures]>([:])
    private let clock = MonotonicClock()
    /// Addresses remembered at once; the table never grows past it.
    private static let remembered = 4_096
    /// A minute without a wrong token and the address starts afresh.
    private static let forgiven: UInt64 = 60_000_000_000
    /// The longest a request is held for its turn.
    static let longestWait: UInt64 = 30_000_000_000

    /// When a request is answered.
    enum Turn: Equatable {
        case now
        /// On `MonotonicClock`.
        case at(UInt64)
        /// Not at all: too many wrong ones wait before it.
        case refused
    }

    init(token: String?) {
        self.token = token
    }

    /// Whether `offered` is the token, answered in this address's turn.
    func admits(_ offered: String?, from address: String) async -> Bool {
        let admitted = matches(offered)
        switch take(turnOf: address, wrong: !admitted) {
        case .now: break
        case .refused: return false
        case .at(let turn):
            let now = clock.now()
            if turn > now { try? await Task.sleep(for: .nanoseconds(turn - now)) }
        }
        record(admitted, from: address)
        return admitted
    }

    /// Whether `offered` is the token; no wait, nothing counted.
    func matches(_ offered: String?) -> Bool {
        guard let token else { return true }
        return Self.constantTimeEqual(Array(token.utf8), Array((offered ?? "").utf8))
    }

    /// Nothing for the first three wrong tokens, then half a second, doubling up to 10 s.
    static func penalty(after wrong: Int) -> UInt64 {
        guard wrong >= 3 else { return 0 }
        return UInt64(min(10_000, 500 << min(wrong - 3, 5))) * 1_000_000
    }

    /// When a request from `address` is answered: at once while the address has offered no wrong
    /// token; else after the one before it and the wait the wrong ones so far (those still waiting
    /// included) have earned, unless that is past `longestWait`. A wrong one waits until `record`.
    func take(turnOf address: String, wrong: Bool) -> Turn {
        // The time is read under the lock: read before it, it could be older than what another
        // thread wrote meanwhile.
        return failures.withLock { table in
            let now = clock.now()
            var entry = table[address] ?? Failures()
            if entry.pending == 0 && now - entry.last >= Self.forgiven { entry.count = 0 }
            guard wrong || entry.count + entry.pending > 0 else { return .now }
            let turn = max(now, entry.turn) + Self.penalty(after: entry.count + entry.pending)
            guard turn - now <= Self.longestWait else { return .refused }
            if table[address] == nil && table.count >= Self.remembered {
                table = table.filter { $0.value.pending > 0 || now - $0.value.last < Self.forgiven }
                if table.count >= Self.remembered { table.removeAll() }
            }
            entry.turn = turn
            if wrong { entry.pending += 1 }
            table[address] = entry
            return .at(turn)
        }
    }

    /// Counts an answered request: a wrong token toward the address's wait, the right one ends it.
    func record(_ admitted: Bool, from address: String) {
        failures.withLock { table in
            let now = clock.now()
            guard var entry = table[address] else { return }
            if admitted {
                entry.count = 0
            } else {
                (entry.pending, entry.count, entry.last) = (max(0, entry.pending - 1), entry.count + 1, now)
            }
            table[address] = entry.count == 0 && entry.pending == 0 ? nil : entry
        }
    }

    /// Compares every byte of `expected` whatever the first difference, so the time taken tells
    /// nothing of how much of a guess was right.
    static func constantTimeEqual(_ expected: [UInt8], _ offered: [UInt8]) -> Bool {
        var difference = expected.count ^ offered.count
        for index in expected.indices {
            difference |= Int(expected[index] ^ (index < offered.count ? offered[index] : 0))
        }
        return difference == 0
    }
}
