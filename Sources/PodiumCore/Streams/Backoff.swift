/// How long an output that lost its peer waits before it tries again: 1, 2, 4 … seconds, never
/// more than 10, so a server that comes back is found within seconds and one that stays away
/// costs a connect attempt every 10 s.
public struct Backoff: Sendable, Equatable {
    public var first: Duration
    public var cap: Duration

    public init(first: Duration = .seconds(1), cap: Duration = .seconds(10)) {
        self.first = first
        self.cap = cap
    }

    /// The wait after `failures` attempts in a row have failed (1 or more).
    public func delay(afterFailures failures: Int) -> Duration {
        // Doubling stops well before it could overflow: 2^20 s is past any cap.
        let doublings = min(max(failures - 1, 0), 20)
        return min(first * (1 << doublings), cap)
    }
}
