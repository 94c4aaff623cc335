import Foundation
import Glibc
import PodiumCore

/// `http://HOST[:PORT]/PATH` with an IPv4 host, as UPnP devices on a LAN give their addresses.
struct HTTPAddress: Sendable, Hashable, CustomStringConvertible {
    var host: String
    var port: UInt16
    /// The path and query, from the first `/`.
    var path: String

    /// Reads `text`; `nil` for anything else (HTTPS, a host name, no host).
    init?(_ text: String) {
        guard text.lowercased().hasPrefix("http://") else { return nil }
        let rest = text.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        let path = rest.dropFirst(authority.count)
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        var address = in_addr()
        guard inet_pton(AF_INET, String(parts[0]), &address) == 1 else { return nil }
        let port = parts.count == 2 ? UInt16(parts[1]) : 80
        guard let port, port > 0 else { return nil }
        host = String(parts[0])
        self.port = port
        self.path = path.isEmpty ? "/" : (path.hasPrefix("/") ? String(path) : "/" + path)
    }

    /// `reference` (absolute, or a path on this host), as UPnP's control URLs are given.
    func resolving(_ reference: String) -> HTTPAddress? {
        if reference.lowercased().hasPrefix("http://") { return HTTPAddress(reference) }
        var resolved = self
        if reference.hasPrefix("/") {
            resolved.path = reference
        } else {
            let folder = path.prefix { $0 != "?" }
            resolved.path = String(folder[...(folder.lastIndex(of: "/") ?? folder.startIndex)]) + reference
        }
        return resolved
    }

    var description: String { "http://\(host):\(port)\(path)" }
}

/// One HTTP/1.1 request and its answer, over a connection of its own, with bounds on everything a
/// device on the LAN could make Podium wait for or read: the connection and the answer each within
/// a deadline, the answer within a size, and no redirect followed.
struct HTTPExchange {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    var method: String
    var address: HTTPAddress
    var headers: [(String, String)] = []
    var body: [UInt8] = []
    /// How long connecting and the whole answer may take.
    var timeout: Duration = .seconds(3)
    /// The largest answer read: a larger one is refused.
    var limit = 1 << 20

    /// Sends the request and reads the answer. Blocks.
    /// - Throws: when it cannot connect, times out, is refused (a redirect, an answer too large)
    ///   or cannot be read.
    func perform() throws(Failure) -> Response {
        let clock = MonotonicClock()
        let deadline = clock.now() + UInt64(timeout.nanoseconds)
        let descriptor = try connect(deadline: deadline, clock: clock)
        defer { close(descriptor) }
        var head = "\(method) \(address.path) HTTP/1.1\r\nHost: \(address.host):\(address.port)\r\n"
            + "Connection: close\r\nUser-Agent: Linux UPnP/2.0 Podium/1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        try send(Array((head + "\r\n").utf8) + body, on: descriptor)
        let raw = try receive(on: descriptor, deadline: deadline, clock: clock)
        return try Self.parse(raw, limit: limit, method: method)
    }

    /// Reads an answer: its status, headers and body (by length, chunks or the connection's end).
    static func parse(_ raw: [UInt8], limit: Int, method: String = "GET") throws(Failure) -> Response {
        guard let end = raw.firstRange(of: [13, 10, 13, 10]) else { throw Failure(description: "no answer") }
        let head = String(decoding: raw[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
        let statusWords = head.first?.split(separator: " ") ?? []
        guard statusWords.count >= 2, statusWords[0].hasPrefix("HTTP/1."), let status = Int(statusWords[1]) else {
            throw Failure(description: "not an HTTP answer")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        if (300..<400).contains(status) {
            throw Failure(description: "it redirects (HTTP \(status)); not followed")
        }
        var body = Array(raw[end.upperBound...])
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try dechunked(body)
        } else if let length = headers["content-length"].flatMap(Int.init), length <= body.count {
            body = Array(body.prefix(length))
        }
        guard body.count <= limit else { throw Failure(description: "its answer is over \(limit / 1024) KiB") }
        return Response(status: status, headers: headers, body: method == "HEAD" ? [] : body)
    }

    private static func dechunked(_ data: [UInt8]) throws(Failure) -> [UInt8] {
        var output: [UInt8] = []
        var index = data.startIndex
        while let lineEnd = data[index...].firstRange(of: [13, 10]) {
            let sizeText = String(decoding: data[index..<lineEnd.lowerBound], as: UTF8.self)
                .split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw Failure(description: "a broken chunked answer")
            }
            if size == 0 { return output }
            let start = lineEnd.upperBound
            guard data.count - start >= size else { throw Failure(description: "a chunked answer cut short") }
            output += data[start..<(start + size)]
            index = min(data.endIndex, start + size + 2)
        }
        return output
    }

    private func connect(deadline: UInt64, clock: MonotonicClock) throws(Failure) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
                                | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: String(cString: strerror(errno))) }
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = address.port.bigEndian
        inet_pton(AF_INET, address.host, &target.sin_addr)
        let started = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if started != 0 && errno != EINPROGRESS {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "cannot connect to \(address.host):\(address.port): \(reason)")
        }
        var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        let remaining = Int32(clamping: deadline > clock.now() ? (deadline - clock.now()) / 1_000_000 : 0)
        guard poll(&ready, 1, remaining) == 1,
              getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 else {
            close(descriptor)
            let reason = error == 0 ? "no answer in time" : String(cString: strerror(error))
            throw Failure(description: "cannot connect to \(address.host):\(address.port): \(reason)")
        }
        return descriptor
    }

    private func send(_ bytes: [UInt8], on descriptor: Int32) throws(Failure) {
        var sent = 0
        while sent < bytes.count {
            var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            guard poll(&ready, 1, 3_000) == 1 else { throw Failure(description: "cannot send the request") }
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 || errno == EAGAIN else { throw Failure(description: "cannot send the request") }
            sent += max(0, count)
        }
    }

    private func receive(on descriptor: Int32, deadline: UInt64, clock: MonotonicClock) throws(Failure) -> [UInt8] {
        var raw: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        // The head's own size, beside the body's limit.
        let most = limit + 65_536
        while true {
            let now = clock.now()
            guard now < deadline else { throw Failure(description: "no whole answer in time") }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(clamping: (deadline - now) / 1_000_000 + 1)) == 1 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return raw }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                throw Failure(description: "the connection broke: \(String(cString: strerror(errno)))")
            }
            raw += buffer[..<count]
            guard raw.count <= most else { throw Failure(description: "its answer is over \(limit / 1024) KiB") }
            if let whole = Self.completeLength(raw), raw.count >= whole { return Array(raw.prefix(whole)) }
        }
    }

    /// The length of the whole answer once its head says it (`Content-Length`), so a device that
    /// keeps its connection open is not waited for.
    private static func completeLength(_ raw: [UInt8]) -> Int? {
        guard let end = raw.firstRange(of: [13, 10, 13, 10]) else { return nil }
        let head = String(decoding: raw[..<end.lowerBound], as: UTF8.self).lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
              let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return nil }
        return end.upperBound + length
    }
}
