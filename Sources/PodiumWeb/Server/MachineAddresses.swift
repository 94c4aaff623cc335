import Foundation
import PodiumCore
import Synchronization

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

/// The names a server on `address` answers to: that address (every address of the machine for
/// `0.0.0.0` or `::`), the machine's host name (and its `.local` one), `localhost`, and the `more`
/// the user named (`?name=`). A request that
/// names another host came by another name's address: a page of another site that had its name
/// resolve to us (DNS rebinding) to read our answers as its own.
final class ServerNames: Sendable {
    private let fixed: Set<String>
    private let anywhere: Bool
    /// `::`: IPv6 addresses too.
    private let everyFamily: Bool
    /// The machine's addresses, read again (at most once a second) when a name is not among them:
    /// a laptop's address changes as it moves between networks.
    private let addresses = Mutex<(names: Set<String>, read: UInt64)>(([], 0))
    private let clock = MonotonicClock()

    init(address: String, more: [String] = []) {
        anywhere = ["0.0.0.0", "::"].contains(address)
        everyFamily = address == "::"
        var host = [CChar](repeating: 0, count: 256)
        let hostName = gethostname(&host, host.count) == 0
            ? String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased() : ""
        var names: Set<String> = ["localhost", "127.0.0.1", "::1"]
        if !hostName.isEmpty { names.formUnion([hostName, hostName + ".local"]) }
        if !anywhere { names.insert(Self.bare(address)) }
        names.formUnion(more.map(Self.bare))
        fixed = names
    }

    /// The names a certificate for the server is for: those it answers to now, and of the
    /// machine's addresses those it listens on (IPv6 ones, whose privacy addresses change daily,
    /// only for `::`).
    var certificateNames: [String] {
        fixed.sorted() + (anywhere ? MachineAddresses.current(ipv6: everyFamily) : [])
    }

    /// Whether `authority` (a `Host` header: a name or address, and a port) names this server.
    func owns(_ authority: String?) -> Bool {
        guard let authority else { return false }
        let name = Self.host(of: authority)
        if fixed.contains(name) { return true }
        guard anywhere else { return false }
        return addresses.withLock { addresses in
            let now = clock.now()
            if !addresses.names.contains(name) && now - addresses.read >= 1_000_000_000 {
                addresses = (Set(MachineAddresses.current(ipv6: true)), now)
            }
            return addresses.names.contains(name)
        }
    }

    /// The host of `authority`, lowercased, without brackets, port or a final dot.
    static func host(of authority: String) -> String {
        var host = Substring(authority.lowercased())
        if host.hasPrefix("["), let end = host.firstIndex(of: "]") {
            host = host[host.index(after: host.startIndex)..<end]
        } else if let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon {
            host = host[..<colon]
        }
        return bare(String(host))
    }

    private static func bare(_ name: String) -> String {
        let lowered = name.lowercased()
        return lowered.hasSuffix(".") ? String(lowered.dropLast()) : lowered
    }
}
