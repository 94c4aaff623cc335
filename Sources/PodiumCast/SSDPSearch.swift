import Foundation
import Glibc
import PodiumCore

/// One renderer's answer to an SSDP search: where its description is, who answered, and this
/// machine's address on the interface the answer came in on (the one the renderer reaches).
struct SSDPAnswer: Sendable, Hashable {
    /// The description's URL (`LOCATION`), on the host that answered.
    var location: String
    /// The IPv4 address the answer came from.
    var responder: String
    /// This machine's address that the search went out from and the answer came back to.
    var local: String
    /// The device's unique service name (`USN`), which tells two answers of one device apart.
    var usn: String
}

/// SSDP's `M-SEARCH` for media renderers (UPnP Device Architecture 2.0, §1.3.2), sent from every
/// IPv4 interface that is up and multicasts, so that a renderer on any network this machine is on
/// answers; each answer is kept with the interface it came in on.
enum SSDPSearch {
    static let group = "239.255.255.250"
    static let port: UInt16 = 1900
    static let deviceType = "urn:schemas-upnp-org:device:MediaRenderer:1"
    /// At most this many answers are read in one search: a flood of them is not followed.
    static let maxAnswers = 256

    /// What a search found: the answers kept, and the answers refused with why (a `LOCATION` on
    /// another host than the one that answered).
    struct Result: Sendable {
        var answers: [SSDPAnswer] = []
        var refused: [String] = []
    }

    /// Searches for `wait` (renderers answer within the `MX` seconds asked, here 1). Blocks.
    /// - Parameter enough: told of each answer kept as it comes; `true` ends the search there.
    static func search(wait: Duration, enough: (SSDPAnswer) -> Bool = { _ in false }) -> Result {
        var sockets: [(descriptor: Int32, local: String)] = []
        defer { sockets.forEach { close($0.descriptor) } }
        for local in interfaceAddresses() {
            guard let descriptor = openSocket(on: local) else { continue }
            sockets.append((descriptor, local))
        }
        let request = "M-SEARCH * HTTP/1.1\r\nHOST: \(group):\(port)\r\nMAN: \"ssdp:discover\"\r\nMX: 1\r\n"
            + "ST: \(deviceType)\r\nUSER-AGENT: Linux UPnP/2.0 Podium/1\r\n\r\n"
        var destination = sockaddr_in()
        destination.sin_family = sa_family_t(AF_INET)
        destination.sin_port = port.bigEndian
        inet_pton(AF_INET, group, &destination.sin_addr)
        // Datagrams get lost: the search goes twice, as UPnP advises.
        for _ in 0..<2 {
            for socket in sockets {
                _ = request.withCString { text in
                    withUnsafePointer(to: &destination) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(socket.descriptor, text, strlen(text), 0, $0,
                                   socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
            }
        }
        var result = Result()
        var seen: Set<String> = []
        let clock = MonotonicClock()
        let deadline = clock.now() + UInt64(wait.nanoseconds)
        var buffer = [UInt8](repeating: 0, count: 2_048)
        var polled = sockets.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        while result.answers.count + result.refused.count < maxAnswers {
            let now = clock.now()
            guard now < deadline, !polled.isEmpty else { break }
            let milliseconds = Int32(clamping: (deadline - now) / 1_000_000 + 1)
            guard poll(&polled, nfds_t(polled.count), milliseconds) > 0 else { continue }
            for (index, entry) in polled.enumerated() where entry.revents & Int16(POLLIN) != 0 {
                var from = sockaddr_in()
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                let count = withUnsafeMutablePointer(to: &from) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(entry.fd, &buffer, buffer.count, 0, $0, &length)
                    }
                }
                guard count > 0 else { continue }
                let responder = Self.text(of: from.sin_addr)
                let message = String(decoding: buffer[..<count], as: UTF8.self)
                switch Self.answer(message, responder: responder, local: sockets[index].local) {
                case .kept(let answer):
                    if seen.insert(answer.usn + " " + answer.location).inserted {
                        result.answers.append(answer)
                        if enough(answer) { return result }
                    }
                case .refused(let reason):
                    if !result.refused.contains(reason) { result.refused.append(reason) }
                case .ignored:
                    break
                }
            }
        }
        return result
    }

    enum Reading: Equatable {
        case kept(SSDPAnswer)
        case refused(String)
        case ignored
    }

    /// Reads one datagram: an answer to the search (`HTTP/1.1 200 OK` with a `LOCATION`), which
    /// is kept only when its description is on the host that answered: a renderer is never asked
    /// to send Podium to a third machine.
    static func answer(_ message: String, responder: String, local: String) -> Reading {
        let lines = message.split(separator: "\r\n", omittingEmptySubsequences: false)
        guard let status = lines.first, status.hasPrefix("HTTP/1.1 200") || status.hasPrefix("HTTP/1.0 200") else {
            return .ignored
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = String(line[line.index(after: colon)...])
                .trimmingCharacters(in: .whitespaces)
        }
        guard let location = headers["location"], let usn = headers["usn"] ?? headers["location"] else {
            return .ignored
        }
        guard let target = HTTPAddress(location), target.host == responder else {
            return .refused("\(responder) answered with a description elsewhere (\(location)); not followed")
        }
        return .kept(SSDPAnswer(location: location, responder: responder, local: local, usn: usn))
    }

    /// A UDP socket bound to `local`, sending multicast out of its interface.
    private static func openSocket(on local: String) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        guard inet_pton(AF_INET, local, &address.sin_addr) == 1 else {
            close(descriptor)
            return nil
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var interface = address.sin_addr
        var hops: UInt8 = 2
        guard bound == 0,
              setsockopt(descriptor, Int32(IPPROTO_IP), IP_MULTICAST_IF, &interface,
                         socklen_t(MemoryLayout<in_addr>.size)) == 0 else {
            close(descriptor)
            return nil
        }
        setsockopt(descriptor, Int32(IPPROTO_IP), IP_MULTICAST_TTL, &hops, socklen_t(MemoryLayout<UInt8>.size))
        return descriptor
    }

    /// The IPv4 addresses of the interfaces that are up and multicast, loopback aside.
    static func interfaceAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [String] = []
        let wanted = UInt32(IFF_UP) | UInt32(IFF_MULTICAST)
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr, Int32(address.pointee.sa_family) == AF_INET,
                  entry.pointee.ifa_flags & wanted == wanted, entry.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0
            else { continue }
            let text = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                Self.text(of: $0.pointee.sin_addr)
            }
            if !found.contains(text) { found.append(text) }
        }
        return found
    }

    static func text(of address: in_addr) -> String {
        var address = address
        var characters = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        inet_ntop(AF_INET, &address, &characters, socklen_t(characters.count))
        return String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
