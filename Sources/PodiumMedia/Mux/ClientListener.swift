import Glibc
public import Logging
public import PodiumCore
import Synchronization

/// `tcp://HOST:PORT?listen`: a listening socket that admits any number of clients, up to
/// `?max=`, each a guest output of its own (`MuxerOutput` over the client's socket, on a thread of
/// its own) that starts on a keyframe. The listener is the output the user named; clients come and
/// go without ending it.
///
/// Thread-safe: `run` is the listener's own thread, the rest is called from anywhere.
public final class ClientListener: RunOutput {
    /// Reads a client's request and answers it before its stream starts, on the client's own
    /// thread (an HTTP server's head); `false` sends it no stream (a `HEAD`, a wrong path).
    public typealias Greeting = @Sendable (_ socket: Int32, _ peer: String) -> Bool

    public let url: MuxerTarget
    public let program: Program
    /// Shared by every client: packets and bytes sent to all of them, drops of any of them.
    public let counters: SinkCounters
    private let capacity: Int
    private let maxClients: Int
    private let logger: Logger
    private let state = Mutex(State())
    /// Raised when the run stops: no more clients are admitted.
    private let stopAccepting = StopFlag()
    private let guestThreads = ThreadGroup()
    private let greeting: Greeting?
    private let shown: String
    /// The port it listens on, once it does (the one asked for, or the system's choice for 0).
    private let boundPort = Atomic<Int>(0)

    private struct State {
        var guests: [MuxerOutput] = []
        /// Set by `close`: no client is admitted after it.
        var closed = false
    }

    /// - Parameters:
    ///   - capacity: packets that may wait for each client.
    ///   - greeting: answers each client's request before its stream; `nil`: the stream at once.
    ///   - shownAs: how messages name it; `url` by default.
    public init(target url: MuxerTarget, program: Program, counters: SinkCounters, capacity: Int, logger: Logger,
                greeting: Greeting? = nil, shownAs: String? = nil) {
        self.url = url
        shown = shownAs ?? url.description
        self.greeting = greeting
        self.program = program
        self.counters = counters
        counters.clients.store(0, ordering: .relaxed)
        self.capacity = capacity
        if case .tcpListen(_, _, let maxClients) = url { self.maxClients = maxClients } else { self.maxClients = 1 }
        var logger = logger
        logger[metadataKey: "sink.url"] = "\(url)"
        self.logger = logger
    }

    public var name: String { shown }
    /// Capture never waits for a viewer.
    public var opensAtOnce: Bool { false }
    public var isLocal: Bool { false }
    public var hasWritten: Bool { counters.packets.load(ordering: .relaxed) > 0 }
    public var hasFailed: Bool { counters.failed.load(ordering: .relaxed) }

    /// Listens, and admits clients until the run stops, each on a thread of its own; then waits
    /// for every client's stream to end.
    /// - Throws: 74 when the address cannot be listened on (in use, not this machine's).
    public func run(hub: StreamHub, clock: any PacingClock, opened: (PodiumError?) -> Void) throws(PodiumError) {
        let socket: Int32
        do {
            socket = try bind()
        } catch {
            counters.failed.store(true, ordering: .relaxed)
            throw error
        }
        defer { Glibc.close(socket) }
        opened(nil)
        acceptClients(on: socket) { guest, client, peer in
            guestThreads.spawn("podium-guest") { [self] in
                serve(guest, socket: client, from: peer, hub: hub, clock: clock)
            }
        }
        guestThreads.waitBlocking()
    }

    /// Starts listening.
    private func bind() throws(PodiumError) -> Int32 {
        guard case .tcpListen(let host, let port, _) = url else { throw .software("\(url) is not a listener") }
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
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        // Both families keep the port at the same place, in network order.
        if named == 0 {
            let port = withUnsafePointer(to: &bound) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
            boundPort.store(Int(port), ordering: .releasing)
        }
        return socket
    }

    /// Admits clients until the run stops (looking every 0.1 s) or `close` is called.
    /// - Parameter admit: called with each client's output, not yet open, its socket and its address.
    private func acceptClients(on socket: Int32, admit: (MuxerOutput, Int32, String) -> Void) {
        while !stopAccepting.isRaised && !state.withLock({ $0.closed }) {
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
            let guest = MuxerOutput(target: url, program: program, flushInterval: .seconds(1), counters: counters,
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
            admit(guest, client, peer)
        }
    }

    /// A client, on a thread of its own: it joins on a keyframe, gets every packet until it leaves
    /// or the run ends, and its leaving ends nothing else.
    private func serve(_ guest: MuxerOutput, socket: Int32, from peer: String, hub: StreamHub,
                       clock: any PacingClock) {
        if let greeting, !greeting(socket, peer) {
            left(guest)
            return
        }
        let joined = clock.now()
        logger.notice("viewer \(peer) joined \(name) (\(clientCount) watching)")
        defer {
            left(guest)
            let seconds = Double(clock.now() - joined) / 1e9
            logger.notice("viewer \(peer) left after \(seconds.fixed()) s")
        }
        do throws(PodiumError) {
            try guest.run(hub: hub, clock: clock) { _ in }
        } catch {
            logger.info("viewer \(peer): \(error.message)")
        }
    }

    /// The port it listens on, once it does; `nil` before.
    public var port: Int? {
        let port = boundPort.load(ordering: .acquiring)
        return port == 0 ? nil : port
    }

    /// How many clients are connected.
    public var clientCount: Int { state.withLock { $0.guests.count } }

    /// Forgets a client that is gone.
    private func left(_ guest: MuxerOutput) {
        state.withLock { state in
            state.guests.removeAll { $0 === guest }
            counters.clients.store(state.guests.count, ordering: .relaxed)
        }
    }

    /// Admits no more clients, and ends every client's stream after what is queued.
    public func close() {
        let guests = state.withLock { state in
            state.closed = true
            return state.guests
        }
        guests.forEach { $0.close() }
    }

    /// Cuts off every client still busy (one that stopped reading).
    public func abort() {
        state.withLock { $0.guests }.forEach { $0.abort() }
    }

    /// The run is stopping: no more clients are admitted.
    public func abortIfOpening() {
        stopAccepting.raise()
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
