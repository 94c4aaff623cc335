import Foundation
import Glibc
import Logging
public import PodiumCore
import PodiumMedia
import Synchronization

/// A TV output (`--to cast:NAME`): the live stream served over HTTP on the address that reaches
/// the renderer (each GET its own MPEG-TS from a keyframe on, through `ClientListener`), and the
/// renderer told to play it (`SetAVTransportURI`, `Play`) and watched (`GetTransportInfo`). A
/// renderer that goes away is said once and cast to again when it answers again; at the end it
/// is told to `Stop`. Like every output, it never holds up capture or the others.
public final class CastOutput: RunOutput {
    public let target: CastTarget
    public let program: Program
    private let context: OutputContext
    private let listener: Mutex<ClientListener?> = Mutex(nil)
    private let threads = ThreadGroup()
    /// Raised by `close`: the run is over.
    private let ended = StopFlag()
    /// Raised to give up now (the run stops before the renderer was found).
    private let interrupt = StopFlag()
    /// Playing: a run that stops then lets it finish rather than cutting it off.
    private let isPlaying = Atomic<Bool>(false)
    private let logger: Logger

    /// How often the renderer is asked how it is doing.
    static let watchInterval: Duration = .seconds(1)
    /// The path the stream is served at: a secret of no one's (the renderer is told it).
    private let path = "/podium/live-\(UInt32.random(in: .min ... .max)).ts"

    init(target: CastTarget, context: OutputContext) {
        self.target = target
        program = context.program
        self.context = context
        var logger = context.logger
        logger[metadataKey: "sink.url"] = "\(target)"
        self.logger = logger
    }

    public var name: String { target.description }
    public var opensAtOnce: Bool { false }
    public var isLocal: Bool { false }
    public var hasWritten: Bool { context.counters.packets.load(ordering: .relaxed) > 0 }
    public var hasFailed: Bool { context.counters.failed.load(ordering: .relaxed) }

    public func close() {
        ended.raise()
        listener.withLock { $0 }?.close()
    }

    public func abort() {
        interrupt.raise()
        listener.withLock { $0 }?.abort()
    }

    public func abortIfOpening() {
        if !isPlaying.load(ordering: .acquiring) { interrupt.raise() }
        listener.withLock { $0 }?.abortIfOpening()
    }

    private var isStopped: Bool { ended.isRaised || interrupt.isRaised }

    /// The output's thread: finds the renderer (the one the check found, first), serves the stream
    /// on its interface, tells it to play, and watches it until the end.
    public func run(hub: StreamHub, clock: any PacingClock, opened: (PodiumError?) -> Void) throws(PodiumError) {
        var renderer = target.found.current
        var told = false
        var saidGone = false
        defer { threads.waitBlocking() }
        while !isStopped {
            guard let current = renderer ?? find() else {
                if !saidGone {
                    logger.warning("\(name): no TV of that name answers; looking again every second")
                    saidGone = true
                }
                clock.sleep(for: .seconds(1)) { isStopped }
                continue
            }
            renderer = current
            guard let format = current.streamFormat else {
                throw failed(.unavailable("\(name): '\(current.name)' plays no MPEG-TS"))
            }
            let url: String
            do {
                url = try serve(on: current.localAddress, format: format, hub: hub, clock: clock)
            } catch {
                throw failed(error)
            }
            if !told {
                opened(nil)
                told = true
            }
            var refusal: CastFailure?
            do throws(CastFailure) {
                try play(url, format: format, on: current)
            } catch {
                refusal = error
            }
            // The TV answered, and said no (714: a type it does not take): asking again changes nothing.
            if let refusal, refusal.code != nil {
                throw failed(.unavailable("\(name): '\(current.name)' refused the stream: \(refusal)"))
            }
            do throws(CastFailure) {
                if let refusal { throw refusal }
                isPlaying.store(true, ordering: .releasing)
                logger.notice("\(name): '\(current.name)' (\(current.address)) plays \(url)")
                saidGone = false
                try watch(current, clock: clock)
            } catch {
                isPlaying.store(false, ordering: .releasing)
                if isStopped { break }
                if !saidGone {
                    logger.warning("\(name): '\(current.name)' went away (\(error)); casting again when it answers")
                    saidGone = true
                }
                // Found again by its unique name; an address that changed is taken.
                renderer = nil
                clock.sleep(for: .seconds(1)) { isStopped }
            }
        }
        if isPlaying.exchange(false, ordering: .acquiringAndReleasing), let renderer {
            _ = try? SOAPAction(service: renderer.avTransportType, action: "Stop", arguments: [("InstanceID", "0")])
                .perform(at: renderer.avTransport, timeout: .seconds(2))
        }
        listener.withLock { $0 }?.close()
    }

    /// The renderer asked for, looked for on every network for a second and a half.
    private func find() -> Renderer? {
        Renderer.discover { $0.isNamed(target.name) }.renderers.first { $0.isNamed(target.name) }
    }

    /// Serves the stream on `address` (once; again only if the renderer is now reached from
    /// another address).
    /// - Returns: the stream's URL.
    private func serve(on address: String, format: StreamFormat, hub: StreamHub, clock: any PacingClock)
        throws(PodiumError) -> String {
        if let running = listener.withLock({ $0 }), running.url.host == address, let port = running.port {
            return "http://\(address):\(port)\(path)"
        }
        listener.withLock { $0 }?.close()
        let greeting = HTTPStreamGreeting(path: path, format: format, logger: logger)
        let serving = ClientListener(target: .tcpListen(host: address, port: 0, maxClients: 4), program: program,
                                     counters: context.counters, capacity: context.capacity, logger: logger,
                                     greeting: greeting.answer, shownAs: name)
        listener.withLock { $0 = serving }
        let listening = ReadyLatch(count: 1)
        let failure = Mutex<PodiumError?>(nil)
        threads.spawn("podium-cast-http") {
            do throws(PodiumError) {
                try serving.run(hub: hub, clock: clock) { error in
                    failure.withLock { $0 = error }
                    listening.report(nil)
                }
            } catch {
                failure.withLock { $0 = $0 ?? error }
                listening.report(nil)
            }
        }
        _ = listening.waitBlocking()
        if let error = failure.withLock({ $0 }) { throw error }
        guard let port = serving.port else { throw .software("\(name): the stream's server has no port") }
        return "http://\(address):\(port)\(path)"
    }

    /// Tells `renderer` to play `url`: the URI with its DIDL-Lite description, then `Play`.
    private func play(_ url: String, format: StreamFormat, on renderer: Renderer) throws(CastFailure) {
        let metadata = """
            <DIDL-Lite xmlns="urn:schemas-upnp-org:metadata-1-0/DIDL-Lite/" \
            xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:upnp="urn:schemas-upnp-org:metadata-1-0/upnp/">\
            <item id="podium-live" parentID="0" restricted="1"><dc:title>Podium</dc:title>\
            <upnp:class>object.item.videoItem</upnp:class>\
            <res protocolInfo="\(XMLTree.escaped(format.protocolInfo))">\(XMLTree.escaped(url))</res></item></DIDL-Lite>
            """
        let service = renderer.avTransportType
        _ = try SOAPAction(service: service, action: "SetAVTransportURI",
                           arguments: [("InstanceID", "0"), ("CurrentURI", url), ("CurrentURIMetaData", metadata)])
            .perform(at: renderer.avTransport)
        _ = try SOAPAction(service: service, action: "Play", arguments: [("InstanceID", "0"), ("Speed", "1")])
            .perform(at: renderer.avTransport)
    }

    /// Asks the renderer how it is doing every second until the run ends.
    /// - Throws: when it stops answering, or stopped playing (someone pressed Stop on the TV).
    private func watch(_ renderer: Renderer, clock: any PacingClock) throws(CastFailure) {
        var lastState = ""
        var misses = 0
        while !isStopped {
            clock.sleep(for: Self.watchInterval) { isStopped }
            if isStopped { return }
            let state: String
            do {
                state = try SOAPAction(service: renderer.avTransportType, action: "GetTransportInfo",
                                       arguments: [("InstanceID", "0")])
                    .perform(at: renderer.avTransport, timeout: .seconds(2))["CurrentTransportState"] ?? ""
            } catch {
                // One unanswered question is a busy TV; three in a row, one that is gone.
                misses += 1
                if misses >= 3 { throw error }
                continue
            }
            misses = 0
            if state != lastState { logger.info("\(name): '\(renderer.name)' is \(state)") }
            lastState = state
            if state == "STOPPED" || state == "NO_MEDIA_PRESENT" {
                throw CastFailure("it stopped playing")
            }
        }
    }

    private func failed(_ error: PodiumError) -> PodiumError {
        context.counters.failed.store(true, ordering: .relaxed)
        return error
    }
}

/// The HTTP head of a renderer's request for the stream, answered before its MPEG-TS: the
/// type and DLNA's headers for a live stream; `HEAD` gets the head alone, another path a 404.
struct HTTPStreamGreeting: Sendable {
    var path: String
    var format: StreamFormat
    var logger: Logger

    /// Reads the request (its head, within 5 s and 16 KiB) and answers it.
    /// - Returns: whether the stream follows.
    @Sendable func answer(_ socket: Int32, _ peer: String) -> Bool {
        guard let request = readHead(socket) else { return false }
        let words = request.split(separator: "\r\n").first?.split(separator: " ") ?? []
        let method = words.first.map(String.init) ?? ""
        let asked = words.count > 1 ? String(words[1]) : ""
        guard asked == path, method == "GET" || method == "HEAD" else {
            write(socket, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            logger.info("\(peer) asked for \(method) of another path; answered 404")
            return false
        }
        write(socket, """
            HTTP/1.1 200 OK\r
            Content-Type: \(format.mimeType)\r
            transferMode.dlna.org: Streaming\r
            contentFeatures.dlna.org: \(StreamFormat.features)\r
            Cache-Control: no-cache\r
            Connection: close\r
            \r

            """)
        return method == "GET"
    }

    private func readHead(_ socket: Int32) -> String? {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let clock = MonotonicClock()
        let deadline = clock.now() + 5_000_000_000
        while head.firstRange(of: [13, 10, 13, 10]) == nil {
            let now = clock.now()
            guard now < deadline, head.count < 16_384 else { return nil }
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32((deadline - now) / 1_000_000) + 1) == 1 else { continue }
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            head += buffer[..<count]
        }
        return String(decoding: head, as: UTF8.self)
    }

    private func write(_ socket: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            bytes = bytes.dropFirst(sent)
        }
    }
}
