import PodiumCore
import Synchronization

/// Who may watch: the token, compared in constant time, and a growing wait for an address that
/// keeps offering a wrong one, so guessing it is slow.
final class AccessGuard: Sendable {
    /// The token every request must carry; `nil` when access is open (`?token=off`, loopback).
    let token: String?
    private struct Failures {
        var count: Int
        var last: UInt64
    }
    private let failures = Mutex<[String: Failures]>([:])
    private let clock = MonotonicClock()
    /// Addresses remembered at once; the table never grows past it.
    private static let remembered = 4_096
    /// A minute without a wrong token and the address starts afresh.
    private static let forgiven: UInt64 = 60_000_000_000

    init(token: String?) {
        self.token = token
    }

    /// Whether `offered` is the token, after the wait this address has earned.
    func admits(_ offered: String?, from address: String) async -> Bool {
        let wait = penalty(for: address)
        if wait > .zero { try? await Task.sleep(for: wait) }
        let admitted = matches(offered)
        record(admitted, from: address)
        return admitted
    }

    /// Whether `offered` is the token; no wait, nothing counted.
    func matches(_ offered: String?) -> Bool {
        guard let token else { return true }
        return Self.constantTimeEqual(Array(token.utf8), Array((offered ?? "").utf8))
    }

    /// Nothing for the first three wrong tokens, then half a second, doubling up to 10 s.
    private func penalty(for address: String) -> Duration {
        let now = clock.now()
        let count = failures.withLock { table -> Int in
            guard let entry = table[address], now - entry.last < Self.forgiven else { return 0 }
            return entry.count
        }
        guard count >= 3 else { return .zero }
        return .milliseconds(min(10_000, 500 << min(count - 3, 5)))
    }

    private func record(_ admitted: Bool, from address: String) {
        let now = clock.now()
        failures.withLock { table in
            guard !admitted else {
                table[address] = nil
                return
            }
            if table[address] == nil && table.count >= Self.remembered {
                table = table.filter { now - $0.value.last < Self.forgiven }
                if table.count >= Self.remembered { table.removeAll() }
            }
            let count = table[address].map { now - $0.last < Self.forgiven ? $0.count : 0 } ?? 0
            table[address] = Failures(count: count + 1, last: now)
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
