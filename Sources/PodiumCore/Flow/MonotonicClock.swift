#if canImport(Glibc)
import Glibc
// Release builds look the C time structs up here (MemberImportVisibility).
import SwiftOverlayShims
#elseif canImport(Darwin)
import Darwin
#endif

/// The time source pacing uses: nanoseconds on a clock that never jumps.
public protocol PacingClock: Sendable {
    /// Now, in nanoseconds since an arbitrary fixed point.
    func now() -> UInt64
    /// Blocks the calling thread until `deadline` (or returns at once if it has passed).
    func sleep(until deadline: UInt64)
}

extension PacingClock {
    /// Sleeps `delay`, or less once `stopped` says so (it is asked every 100 ms): an output
    /// waiting to connect again gives up as soon as the run ends.
    public func sleep(for delay: Duration, unless stopped: () -> Bool) {
        let deadline = now() + UInt64(delay.nanoseconds)
        while !stopped() && now() < deadline {
            sleep(until: min(deadline, now() + 100_000_000))
        }
    }
}

/// `CLOCK_MONOTONIC`, the clock X servers and FFmpeg's wall-clock helpers use too.
public struct MonotonicClock: PacingClock {
    public init() {}

    public func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    public func sleep(until deadline: UInt64) {
        var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        // Absolute sleeps do not drift when a wake-up comes late; EINTR just means wake and re-check.
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil) == EINTR {}
    }
}
