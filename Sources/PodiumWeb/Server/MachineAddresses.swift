import Foundation

/// This machine's addresses, for the links a server on every address (`0.0.0.0`) is reached by.
enum MachineAddresses {
    /// The IPv4 addresses of the interfaces that are up (and IPv6 ones when `ipv6`), LAN ones
    /// first and loopback last.
    static func current(ipv6: Bool) -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return ["127.0.0.1"] }
        defer { freeifaddrs(list) }
        var found: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr, entry.pointee.ifa_flags & UInt32(IFF_UP) != 0 else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || (ipv6 && family == AF_INET6) else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else {
                continue
            }
            let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // Link-local IPv6 addresses need a zone, which links cannot carry.
            if text.hasPrefix("fe80") || found.contains(text) { continue }
            found.append(text)
        }
        let isLoopback = { (host: String) in host.hasPrefix("127.") || host == "::1" }
        return found.filter { !isLoopback($0) } + found.filter(isLoopback)
    }
}
