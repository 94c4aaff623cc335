#if canImport(Glibc)
import Glibc
// Release builds look the C time structs up here (MemberImportVisibility).
import SwiftOverlayShims
#elseif canImport(Darwin)
import Darwin
#endif

/// CPU time this process has used, user plus system, in nanoseconds.
public func processCPUNanoseconds() -> UInt64 {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    func nanoseconds(_ time: timeval) -> UInt64 { UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_usec) * 1_000 }
    return nanoseconds(usage.ru_utime) + nanoseconds(usage.ru_stime)
}
