import Glibc
public import Logging
public import PodiumCore
import Synchronization

/// `tcp://HOST:PORT?listen`: a listening socket that admits any number of clients, up to
/// `?max=`, each a guest output of its own (`MuxerOutput` over the client's socket) that starts on
/// a keyframe. The listener is the output the user named; clients come and go without ending it.
///
/// Thread-safe: `acceptClients` runs on the listener's own thread, the rest from anywhere.
public final class ClientListener: Sendable {
    public let url: SinkURL
    /// Shared by every client: packets and bytes sent to all of them, drops of any of them.
    public let counters: SinkCounters
    private let capacity: Int
    private let maxClients: Int
    private let logger: Logger
    private let descriptor = Atomic<Int32>(-1)
    private let state = Mutex(State())

    private struct State {
        var guests: [MuxerOutput] = []
        /// Set by `closeAll`: no client is admitted after it.
        var closed = false
    }

    /// - Parameter capacity: packets that may wait for each client.
    public init(url: SinkURL, counters: SinkCounters, capacity: Int, logger: Logger) {
        self.url = url
        self.counters = counters
        counters.clients.store(0, ordering: .relaxed)
        self.capacity = capacity
        if case .tcpListen(_, _, let maxClients) = url { self.maxClients = maxClients } else { self.maxClients = 1 }
        var logger = logger
        logger[metadataKey: "sink.url"] = "\(url)"
        self.logger = logger
    }

    deinit {
        let open = descriptor.load(ordering: .relaxed)
        if open >= 0 { Glibc.close(open) }
    }

    /// Starts listening.
    /// - Throws: 74 when the address cannot be listened on (in use, not this machine's).
    public func bind() throws(PodiumError) {
        guard case .tcpListen(let host, let port, _) = url else { return }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var found: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, "\(port)", &hints, &found)
        guard resolved == 0, let address = found else {
            throw .io("cannot listen on \(url): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(found) }
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let socket = Glibc.socket(address.pointee.ai_family, type, 0)
        guard socket >= 0 else { throw .io("cannot listen on \(url): \(String(cString: strerror(errno)))") }
        var on: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard Glibc.bind(socket, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0,
              listen(socket, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(socket)
            throw .io("cannot listen on \(url): \(reason)")
        }
        descriptor.store(socket, ordering: .relaxed)
    }

    /// Admits clients until `stop` is raised (looking every 0.1 s) or `closeAll` is called.
    /// - Parameter admit: called with each client's output, not yet open, and its address; it
    ///   runs the client and calls `left` when it is gone.
    public func acceptClients(until stop: StopFlag, admit: (MuxerOutput, String) -> Void) {
        let socket = descriptor.load(ordering: .relaxed)
        guard socket >= 0 else { return }
        while !stop.isRaised && !state.withLock({ $0.closed }) {
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) > 0 else { continue }
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(socket, $0, &length) }
            }
            guard client >= 0 else { continue }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            let peer = Self.describe(&address, length: length)
            var noDelay: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            let guest = MuxerOutput(url: url, flushInterval: .seconds(1), counters: counters,
                                    capacity: capacity, logger: logger, client: client)
            let admitted = state.withLock { state in
                guard !state.closed, state.guests.count < maxClients else { return false }
                state.guests.append(guest)
                counters.clients.store(state.guests.count, ordering: .relaxed)
                return true
            }
            guard admitted else {
                // The guest owns the socket: releasing it closes the connection.
                logger.notice("viewer \(peer) refused: \(maxClients) watching already (?max=\(maxClients))")
                continue
            }
            admit(guest, peer)
        }
    }

    /// How many clients are connected.
    public var clientCount: Int { state.withLock { $0.guests.count } }

    /// Forgets a client that is gone.
    public func left(_ guest: MuxerOutput) {
        state.withLock { state in
            state.guests.removeAll { $0 === guest }
            counters.clients.store(state.guests.count, ordering: .relaxed)
        }
    }

    /// Admits no more clients, and ends every client's stream after what is queued.
    public func closeAll() {
        let guests = state.withLock { state in
            state.closed = true
            return state.guests
        }
        guests.forEach { $0.close() }
    }

    /// Cuts off every client still busy (one that stopped reading).
    public func abortAll() {
        state.withLock { $0.guests }.forEach { $0.abort() }
    }

    /// `127.0.0.1:53312` or `[::1]:53312`.
    private static func describe(_ address: inout sockaddr_storage, length: socklen_t) -> String {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let found = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                            NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard found == 0 else { return "a client" }
        func text(_ characters: [CChar]) -> String {
            String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let name = text(host)
        return (name.contains(":") ? "[\(name)]" : name) + ":" + text(service)
    }
}
