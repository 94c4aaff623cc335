import Foundation
import NIOWebSocket
import HummingbirdCore
import HTTPTypes
import Hummingbird
import HummingbirdTLS
import HummingbirdWebSocket
public import Logging
import NIOCore
import NIOSSL
public import PodiumCore
public import ServiceLifecycle
import Synchronization

/// The browser viewer's server (`--to http://HOST:PORT`): the page at `/` and the stream's
/// WebSocket at `/stream`, both behind the token; with a remote (`--remote`), its page at
/// `/remote` and its requests at `/remote/control`, behind a token of its own; with an extra
/// screen's input (`podium extend --allow-input`), its events at `/input`, behind another; nothing
/// else.
///
/// A `Service`: run it in the run's `ServiceGroup`. Capture starts once `listening()` returns,
/// so a port in use ends the run before anything was captured or written.
public final class ViewerServer: Service, OutputServer {
    public let options: ViewerOptions
    /// The token every request must carry (random unless `?token=` chose one); `nil` when open.
    public let token: String?
    /// The certificate's SHA-256, for `https://`.
    public let fingerprint: String?
    /// Where the certificate came from, for `https://`.
    public let certificateOrigin: String?
    private let tls: TLSConfiguration?
    let board: ViewerBoard
    let clock: any PacingClock
    let logger: Logger
    private let access: AccessGuard
    /// The remote, once opened: its token's guard and what answers its requests.
    private let remote = Mutex<(access: AccessGuard, answer: @Sendable (String) -> String)?>(nil)
    /// The remote's requests being answered now.
    private let remoteRequests = Atomic(0)
    /// The extra screen's input, once opened: its token's guard and what plays its events.
    let input = Mutex<(access: AccessGuard, session: InputSession)?>(nil)
    /// Input requests being played now.
    private let inputRequests = Atomic(0)
    private let started = Latch()
    private let connections: Connections
    /// The names requests may give as their `Host`.
    private let names: ServerNames
    struct State {
        /// Each rendition, largest first, made as the run is built.
        var made: [ViewerFeed] = []
        /// The renditions viewers are served; empty until the encoders are open.
        var feeds: [ViewerFeed] = []
        /// Whether the presenter froze the picture, so the page can say so.
        var isPaused: @Sendable () -> Bool = { false }
        var viewers: [Int: Viewer] = [:]
        /// Slots taken, counted as a connection is upgraded, before the viewer says hello.
        var admitted = 0
        var closed = false
    }
    let state = Mutex(State())

    /// Reads the certificate (or makes one) and chooses the token; opens nothing.
    /// - Parameters:
    ///   - board: where viewers' figures go, for the statistics.
    ///   - clock: the clock capture times are on; pongs tell the page its readings.
    /// - Throws: 64 for a certificate or key that cannot be read; 73 when a self-signed one
    ///   cannot be kept.
    public init(options: ViewerOptions, board: ViewerBoard, clock: any PacingClock, logger: Logger)
        throws(PodiumError) {
        self.options = options
        self.board = board
        self.clock = clock
        self.logger = logger
        switch options.access {
        case .randomToken: token = Self.randomToken()
        case .token(let chosen): token = chosen
        case .open: token = nil
        }
        access = AccessGuard(token: token)
        names = ServerNames(address: options.address, more: options.names)
        // Viewers behind one address (a NAT, a proxy) each hold a stream, and their pages more.
        connections = Connections(perAddress: max(16, options.maxViewers + 8))
        if options.secure {
            let certificate = if let path = options.certificate {
                try ViewerCertificate(certificate: path, key: options.privateKey ?? path)
            } else {
                try ViewerCertificate(selfSignedIn: ConfigFolder.path, naming: names.certificateNames)
            }
            tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: certificate.chain.map { .certificate($0) }, privateKey: .privateKey(certificate.key))
            fingerprint = certificate.fingerprint
            certificateOrigin = certificate.origin
        } else {
            tls = nil
            fingerprint = nil
            certificateOrigin = nil
        }
    }

    /// 128 random bits, base64url: 22 characters that need no escaping in a link.
    private static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// A feed for each rendition (largest first) and the sound, each a guest of the run.
    public func guests(for renditions: [(name: String, stream: Int)], sound: Int?,
                       hub: StreamHub) -> [any GuestSink] {
        let feeds = renditions.map { ViewerFeed(name: $0.name, stream: $0.stream, sound: sound, hub: hub) }
        state.withLock { $0.made = feeds }
        return feeds
    }

    /// Offers the renditions from now on, and says whether the presenter froze the picture.
    /// Viewers who come before are told to wait.
    public func open(isPaused: @escaping @Sendable () -> Bool) {
        state.withLock { state in
            state.feeds = state.made
            state.isPaused = isPaused
        }
    }

    var isPaused: Bool { state.withLock { $0.isPaused }() }

    /// Returns once the server listens.
    /// - Throws: 69 when the port is in use or the address is not this machine's.
    public func listening() async throws(PodiumError) {
        try await started.wait()
    }

    /// The links to print: one for each of this machine's addresses the server can be reached on.
    public var links: [String] { links(path: "", token: token) }

    /// The remote's page beside the viewer (`--remote`): its requests are the control socket's,
    /// which `answer` answers (one JSON request in, one JSON reply out, as `RunControl.answer`
    /// does). Its token is its own: a viewer's opens no remote.
    /// - Returns: the remote's links, as `links` are the viewers'.
    public func openRemote(answer: @escaping @Sendable (String) -> String) -> [String] {
        let token = Self.randomToken()
        remote.withLock { $0 = (AccessGuard(token: token), answer) }
        return links(path: "remote", token: token)
    }

    /// Takes a viewer's pointer and keys for `player` (`podium extend --allow-input`). Its token is
    /// its own, added to the viewer's link: a viewer's link sends nothing.
    /// - Returns: the links of a page that watches and sends.
    public func openInput(player: any InputInjector) -> [String] {
        let inputToken = Self.randomToken()
        input.withLock { $0 = (AccessGuard(token: inputToken), InputSession(player: player, clock: clock)) }
        return links(path: "", token: token, input: inputToken)
    }

    /// The links to `path` on each of the machine's addresses it listens on, with `token` (and an
    /// input token); over https, with the certificate's fingerprint after `#cert=`, which the page
    /// shows beside the one the browser shows (a fragment never leaves the browser).
    private func links(path: String, token: String?, input: String? = nil) -> [String] {
        let scheme = options.secure ? "https" : "http"
        let anywhere = ["0.0.0.0", "::"].contains(options.address)
        let hosts = anywhere ? MachineAddresses.current(ipv6: options.address == "::") : [options.address]
        let fields = [token.map { "token=\($0)" }, input.map { "input=\($0)" }].compactMap { $0 }
        let query = fields.isEmpty ? "" : "?" + fields.joined(separator: "&")
        let fragment = fingerprint.map { "#cert=" + $0.replacingOccurrences(of: ":", with: "") } ?? ""
        return hosts.map { "\(scheme)://\(URLText.authority($0, options.port))/\(path)\(query)\(fragment)" }
    }

    public func run() async throws {
        // Hummingbird's own detail would name request paths, and a path holds the token; its errors
        // are a connection's (a browser that went away), shown only with --verbose.
        var serverLogger = logger
        serverLogger.logLevel = logger.logLevel <= .debug ? .warning : .critical
        let application = Application(
            router: router(), server: try serverBuilder(),
            configuration: .init(address: .hostname(options.address, port: options.port), serverName: nil),
            onServerRunning: { [started] _ in started.open(nil) }, logger: serverLogger)
        let watching = Task { await watchViewers() }
        defer { watching.cancel() }
        do {
            try await withGracefulShutdownHandler {
                try await application.run()
            } onGracefulShutdown: { [connections] in
                // A second for every viewer to be told the stream ended; then whatever is left is cut.
                Task {
                    try? await Task.sleep(for: .seconds(1))
                    connections.closeAll()
                }
            }
        } catch {
            let failure = PodiumError.unavailable("cannot listen on port \(options.port) (\(Self.reason(error)))",
                                                  about: .output("\(options)"))
            started.open(failure)
            throw failure
        }
        // It ended before it ever listened: the group is stopping.
        started.open(.unavailable("the viewer server stopped before it started", about: .output("\(options)")))
    }

    /// Every viewer's stream ends; the server itself stops with the service group.
    public func close() {
        let viewers = state.withLock { state in
            state.closed = true
            return Array(state.viewers.values)
        }
        viewers.forEach { $0.finish() }
        // Before the run's end closes the desktop's connection: a few releases, written and flushed.
        input.withLock { $0 }?.session.releaseAll()
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? IOError, error.errnoCode == EADDRINUSE { return "it is in use" }
        if let error = error as? IOError, error.errnoCode == EADDRNOTAVAIL { return "not an address of this machine" }
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        return "\(error)"
    }

    // MARK: - HTTP

    private func serverBuilder() throws -> HTTPServerBuilder {
        // A browser keeps the connection its page came on; idle, it is closed after two seconds.
        // A page that stops answering pings, or the closing handshake, gives up after a few seconds.
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: .seconds(2)),
            ws: .init(maxFrameSize: 1 << 16, autoPing: .enabled(timePeriod: .seconds(10)), closeTimeout: .seconds(2)))
        let upgrade = HTTPServerBuilder { [self] responder in
            TrackedChannel(base: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: configuration) {
                request, channel, _ in
                let answer = try await self.shouldUpgrade(request, peer: Self.address(channel.remoteAddress))
                // The kernel's own buffer, left to grow, would hold seconds of video for a viewer
                // whose network stalled before the viewer's queue noticed. 64 kB (the kernel doubles
                // it) is 0.17 s at 6 Mbit/s, and still 50 Mbit/s over a 20 ms round trip.
                if case .upgrade = answer {
                    try await channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: 64 << 10).get()
                }
                return answer
            }, connections: connections)
        }
        guard let tls else { return upgrade }
        return try .tls(upgrade, tlsConfiguration: tls)
    }

    private func router() -> Router<ViewerRequestContext> {
        let router = Router(context: ViewerRequestContext.self)
        router.middlewares.add(SecurityHeaders())
        router.middlewares.add(OwnNames(names: names))
        router.get("/") { [self] request, context in
            guard await access.admits(offered(request, door: .viewer), from: context.peer) else {
                return Self.refusal(.forbidden, "This link's token is not right; ask the presenter for the link.")
            }
            return keepingTokens(of: request, doors: [.viewer, .input], in: Self.show(.viewer))
        }
        router.get("/remote") { [self] request, context in
            guard let remote = remote.withLock({ $0 }) else {
                return Self.refusal(.notFound, "This run has no remote.")
            }
            guard await remote.access.admits(offered(request, door: .remote), from: context.peer) else {
                logger.info("remote: \(context.peer) offered a wrong token")
                return Self.refusal(.forbidden, "This link's token is not the remote's; ask the presenter for it.")
            }
            return keepingTokens(of: request, doors: [.remote], in: Self.show(.remote))
        }
        router.post("/remote/control") { [self] request, context in
            let remote = remote.withLock { $0 }
            if let refused = await refusal(of: request, from: context.peer, access: remote?.access, door: .remote) {
                return refused
            }
            guard let remote else { return Self.refusal(.notFound, "This run has no remote.") }
            // A few requests at once (a button and the chart's poll); more wait for none of them.
            guard remoteRequests.add(1, ordering: .relaxed).newValue <= 4 else {
                remoteRequests.subtract(1, ordering: .relaxed)
                return Self.refusal(.serviceUnavailable, "The remote is busy; try again.")
            }
            defer { remoteRequests.subtract(1, ordering: .relaxed) }
            let body = try await request.body.collect(upTo: 4_096)
            let line = String(buffer: body)
            let reply = await onOwnThread("podium-remote") { remote.answer(line) }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: reply)))
        }
        router.post("/input") { [self] request, context in
            let input = input.withLock { $0 }
            if let refused = await refusal(of: request, from: context.peer, access: input?.access, door: .input) {
                return refused
            }
            guard let input else { return Self.refusal(.notFound, "This run takes no input.") }
            // Bounded: two requests at once (a page sends one at a time), 128 events each.
            guard inputRequests.add(1, ordering: .relaxed).newValue <= 2 else {
                inputRequests.subtract(1, ordering: .relaxed)
                return Self.refusal(.tooManyRequests, "Too much input at once.")
            }
            defer { inputRequests.subtract(1, ordering: .relaxed) }
            let body = try await request.body.collect(upTo: 16_384)
            guard let batch = RemoteInput.batch(fromJSON: Data(body.readableBytesView)) else {
                return Self.refusal(.badRequest, "Input is {\"seq\": N, \"events\": [at most 128 events]}.")
            }
            let session = input.session
            let outcome = await onOwnThread("podium-input") { session.play(batch.number, batch.events) }
            guard case .stale(let last) = outcome else { return Response(status: .noContent) }
            // Not played: sent again, or numbered by a clock behind the last page's, which the
            // page then numbers past.
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .conflict, headers: headers,
                            body: .init(byteBuffer: ByteBuffer(string: #"{"last":\#(last)}"#)))
        }
        // A request for the stream that was not upgraded: a wrong token or origin, or not a WebSocket.
        router.get("/stream") { [self] request, context in
            let viewerToken = offered(request, door: .viewer)
            guard watches(viewerToken) || watches(offered(request, door: .remote)) else {
                // The upgrade already counted the failure; a plain GET is counted here.
                if request.headers[.upgrade] == nil { _ = await access.admits(viewerToken, from: context.peer) }
                return Self.refusal(.forbidden, "This link's token is not right.")
            }
            if request.headers[.upgrade] != nil {
                return Self.refusal(.forbidden, "This page's origin may not open the stream.")
            }
            return Self.refusal(.badRequest, "The stream is a WebSocket; open the page at / instead.")
        }
        return router
    }

    /// Why a page's request to `door` (the remote, the input) is refused: no such thing here or a
    /// wrong token (counted, and slowed, by `access`), or another site's page (no other site's
    /// script may send); `nil` when it may be answered.
    private func refusal(of request: Request, from peer: String, access: AccessGuard?, door: Door) async
        -> Response? {
        let what = door.rawValue
        guard let access, await access.admits(offered(request, door: door), from: peer) else {
            logger.info("\(what): \(peer) offered a wrong token")
            return Self.refusal(.forbidden, "This link's token is not the \(what)'s.")
        }
        if let origin = request.headers[.origin], origin != "\(options.secure ? "https" : "http")://"
            + (request.head.authority ?? "") {
            return Self.refusal(.forbidden, "This page's origin may not send to the \(what).")
        }
        return nil
    }

    /// Where a page keeps its token once its link was opened: a cookie for each door. A cookie is
    /// the host's, whatever the port: named with the port, runs on two ports do not overwrite
    /// each other's, but another server on this host name receives them too.
    enum Door: String {
        case viewer, remote, input
    }

    private func cookieName(_ door: Door) -> String { "podium-\(door.rawValue)-\(options.port)" }

    /// The token `request` offers at `door`: in its query (a link, a script), else in the cookie
    /// its page's first load left.
    private func offered(_ request: Request, door: Door) -> String? {
        offered(uri: request.uri, cookies: request.cookies, door: door)
    }

    private func offered(uri: URI, cookies: Cookies, door: Door) -> String? {
        if let query = uri.queryParameters["token"], !query.isEmpty { return String(query) }
        return cookies[cookieName(door)]?.value
    }

    /// A page's first load, by its link: its tokens (`?token=`, and `&input=` on the viewer's) go
    /// into `HttpOnly`, `SameSite=Strict` cookies, which its stream and requests then carry; the
    /// page takes them out of its address at once (`history.replaceState`), so that no token sits
    /// in the address bar, the history entry, a screenshot or a `Referer`. A cookie set by a page
    /// rather than a redirect: a link opened from another site's page would not carry a strict
    /// cookie through a redirect.
    private func keepingTokens(of request: Request, doors: [Door], in page: Response) -> Response {
        var response = page
        for door in doors {
            let key = door == .input ? "input" : "token"
            guard let value = request.uri.queryParameters[key[...]], !value.isEmpty else { continue }
            response.setCookie(Cookie(name: cookieName(door), value: String(value), path: "/",
                                      secure: options.secure, httpOnly: true, sameSite: .strict))
        }
        return response
    }

    private static func show(_ page: ViewerPage) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentSecurityPolicy] = page.contentSecurityPolicy
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: page.body))
    }

    private static func refusal(_ status: HTTPResponse.Status, _ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    /// Upgrades `/stream` with the right token, from the page's own origin, while there is room.
    private func shouldUpgrade(_ request: HTTPRequest, peer: String) async throws
        -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let uri = URI(request.path ?? "/")
        guard uri.path == "/stream" else { return .dontUpgrade }
        let cookies = Cookies(from: request.headerFields[values: .cookie])
        guard names.owns(request.authority) else {
            let named = (request.authority ?? "none").prefix(64)
            logger.info("viewer \(peer): a request for another host, \(named), was refused")
            return .dontUpgrade
        }
        let viewerToken = offered(uri: uri, cookies: cookies, door: .viewer)
        // The remote's preview watches with the remote's token; a wrong one is counted as a viewer's.
        let admitted = watches(viewerToken) || watches(offered(uri: uri, cookies: cookies, door: .remote))
            ? true : await access.admits(viewerToken, from: peer)
        guard admitted else {
            logger.info("viewer \(peer) offered a wrong token")
            return .dontUpgrade
        }
        // A browser says which page opens the socket: only ours may (no other site's script).
        if let origin = request.headerFields[.origin] {
            let scheme = options.secure ? "https" : "http"
            guard let authority = request.authority, origin == "\(scheme)://\(authority)" else {
                logger.info("viewer \(peer): a page from \(origin) may not open the stream")
                return .dontUpgrade
            }
        }
        return .upgrade([:]) { [self] inbound, outbound, _ in
            await serve(inbound: inbound, outbound: outbound, peer: peer)
        }
    }

    /// Whether `offered` is the remote's token, which may watch as well as a viewer's.
    private func watches(_ offered: String?) -> Bool {
        access.matches(offered) || remote.withLock { $0 }?.access.matches(offered) == true
    }

    static func address(_ address: SocketAddress?) -> String {
        guard let address else { return "?" }
        if let ip = address.ipAddress { return address.protocol == .inet6 ? "[\(ip)]" : ip }
        return "\(address)"
    }
}

/// What each request handler knows: where the request came from.
struct ViewerRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let peer: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = ViewerServer.address(source.channel.remoteAddress)
    }
}

/// Sent with every answer: nothing is cached, no referrer leaves with the token, nothing sniffed.
struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response {
        var response = try await next(request, context)
        response.headers[.cacheControl] = "no-store"
        response.headers[.xContentTypeOptions] = "nosniff"
        if let referrerPolicy = HTTPField.Name("Referrer-Policy") { response.headers[referrerPolicy] = "no-referrer" }
        if response.headers[.contentSecurityPolicy] == nil {
            response.headers[.contentSecurityPolicy] = "default-src 'none'; frame-ancestors 'none'"
        }
        return response
    }
}

/// Answers 421 to a request whose `Host` is not one of the server's names (see `ServerNames`).
struct OwnNames<Context: RequestContext>: RouterMiddleware {
    let names: ServerNames

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response {
        guard names.owns(request.head.authority) else {
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; charset=utf-8"
            headers[.connection] = "close"
            return Response(status: .misdirectedRequest, headers: headers,
                            body: .init(byteBuffer: ByteBuffer(string: "This server does not answer to that name.\n")))
        }
        return try await next(request, context)
    }
}

/// Opened once, with or without an error; waiters wait until then.
final class Latch: Sendable {
    struct State {
        var result: Result<Void, PodiumError>?
        var waiters: [CheckedContinuation<Result<Void, PodiumError>, Never>] = []
    }
    let state = Mutex(State())

    func open(_ failure: PodiumError?) {
        let waiters = state.withLock { state -> [CheckedContinuation<Result<Void, PodiumError>, Never>] in
            guard state.result == nil else { return [] }
            state.result = failure.map { .failure($0) } ?? .success(())
            defer { state.waiters = [] }
            return state.waiters
        }
        let result = state.withLock { $0.result }
        if let result { waiters.forEach { $0.resume(returning: result) } }
    }

    func wait() async throws(PodiumError) {
        let result = await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<Void, PodiumError>? in
                if state.result == nil { state.waiters.append(continuation) }
                return state.result
            }
            if let ready { continuation.resume(returning: ready) }
        }
        try result.get()
    }
}
