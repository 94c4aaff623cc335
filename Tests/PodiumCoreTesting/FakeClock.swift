public import PodiumCore
import Synchronization

/// A clock that only moves when told to, or when slept on: a paced loop on it runs as fast as its
/// work lets it, and its figures are exact.
public final class FakeClock: PacingClock {
    private let time = Mutex<UInt64>(1_000)

    public init() {}

    public func now() -> UInt64 { time.withLock { $0 } }
    public func sleep(until deadline: UInt64) { time.withLock { $0 = max($0, deadline) } }
    public func advance(by nanoseconds: UInt64) { time.withLock { $0 += nanoseconds } }
}
