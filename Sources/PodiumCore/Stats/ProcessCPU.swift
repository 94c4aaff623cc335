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

/// CPU time another process has used, user plus system, in nanoseconds, from `/proc/PID/stat`;
/// `nil` when it cannot be read (the process is gone, or there is no `/proc`).
public func processCPUNanoseconds(pid: Int32) -> UInt64? {
    guard let file = fopen("/proc/\(pid)/stat", "r") else { return nil }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 1024)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
    let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    // The command name, in parentheses, may hold spaces: fields are counted after its closing one.
    guard let close = line.lastIndex(of: ")") else { return nil }
    let fields = line[line.index(after: close)...].split(separator: " ")
    // Fields 14 and 15 of the file (utime, stime), in clock ticks; the first after ")" is field 3.
    guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return nil }
    let ticksPerSecond = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))
    return (user + system) * 1_000_000_000 / ticksPerSecond
}

/// CPU time the calling thread has used, in nanoseconds.
public func threadCPUNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}
