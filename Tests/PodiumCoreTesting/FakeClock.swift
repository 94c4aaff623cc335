public import PodiumCore
import Synchronization

/// A clock that only moves when told to, or when slept on: a paced loop on it runs as fast as its
/// work lets it, and its figures are exact.
public final class FakeClock: PacingClock {
    private let time = Mutex<UInt64>(1_000)

    /// Called after each sleep with the time it slept until, on the sleeping thread.
    private let afterSleep: @Sendable (UInt64) -> Void

    public init(afterSleep: @escaping @Sendable (UInt64) -> Void = { _ in }) {
        self.afterSleep = afterSleep
    }

    public func now() -> UInt64 { time.withLock { $0 } }
    public func sleep(until deadline: UInt64) {
        time.withLock { $0 = max($0, deadline) }
        afterSleep(deadline)
    }
    public func advance(by nanoseconds: UInt64) { time.withLock { $0 += nanoseconds } }
}
