import Logging
public import PodiumCore
import Synchronization

/// A WebRTC output (`--to whip+https://…`): its program, H.264 of an encoder of its own and Opus,
/// published over WHIP on one peer connection. Packets wait in a bounded queue for the output's
/// thread, which sends them, answers the receiver's keyframe requests, follows its feedback with
/// its encoder's bit rate (`NetworkRate`), and connects again with backoff when the connection
/// fails or the receiver falls silent. Like a push, it never holds up capture or the other outputs.
public final class WHIPOutput: RunOutput, PacketSink {
    public let endpoint: WHIPEndpoint
    public let program: Program
    /// Packets waiting for the output's thread (taken while it connects or sends), and the flags
    /// that end it: `interrupt` gives up now (the run is stopping and it is not connected, or it
    /// is cut off).
    private let queue: OutputQueue
    /// Connected and sending: a run that stops then lets it finish rather than cutting it off.
    private let isConnected = Atomic<Bool>(false)
    private let retry = Backoff()
    private let logger: Logger

    /// A receiver silent this long is gone (receivers report about once a second).
    static let silence: Duration = .seconds(5)
    /// Keyframes asked for by the receiver are made at most this often.
    static let keyframeSpacing: UInt64 = 500_000_000
    /// How often the receiver's feedback is read.
    static let feedbackInterval: UInt64 = 100_000_000
    /// How soon after the first keyframe a second follows (see `sending`).
    static let secondKeyframeDelay: UInt64 = 200_000_000

    /// - Parameter context: its program, counters and queue's capacity.
    public init(endpoint: WHIPEndpoint, context: OutputContext) {
        self.endpoint = endpoint
        program = context.program
        queue = OutputQueue(capacity: context.capacity, counters: context.counters)
        var logger = context.logger
        logger[metadataKey: "sink.url"] = "\(endpoint)"
        self.logger = logger
    }

    public var name: String { url }
    public var opensAtOnce: Bool { false }
    public var isLocal: Bool { false }
    public var hasWritten: Bool { queue.hasWritten }
    public var hasFailed: Bool { queue.hasFailed }
    /// How messages name it, its secrets masked.
    private var url: String { endpoint.description }
    private var counters: SinkCounters { queue.counters }
    private var ended: StopFlag { queue.ended }
    private var interrupt: StopFlag { queue.interrupt }

    /// Queues `packet` while connecting or connected, unless its drop policy refuses it. Never blocks.
    public func offer(_ packet: EncodedPacket) { queue.offer(packet) }

    public func close() { queue.close() }

    public func abort() {
        interrupt.raise()
        queue.close()
    }

    public func abortIfOpening() {
        if !isConnected.load(ordering: .acquiring) { interrupt.raise() }
    }

    /// The output's thread: connects, sends until the end, and connects again after a fault. A
    /// refusal of the first offer (a 4xx: a bad token, no such room) ends it (69).
    public func run(hub: StreamHub, clock: any PacingClock, opened: (PodiumError?) -> Void) throws(PodiumError) {
        try WebRTCPeer.preparing { () throws(PodiumError) in
            try connectAndSend(hub: hub, clock: clock, opened: opened)
        }
    }

    private func connectAndSend(hub: StreamHub, clock: any PacingClock, opened: (PodiumError?) -> Void)
        throws(PodiumError) {
        var firstAttempt = true
        var wasUp = false
        while !ended.isRaised && !interrupt.isRaised {
            let connection: Connection
            do {
                connection = try connect(hub.streams(of: program), hub: hub, clock: clock)
            } catch {
                hub.unsubscribe(self)
                queue.isTaking = false
                queue.restart()
                if firstAttempt { opened(error) }
                firstAttempt = false
                if ended.isRaised || interrupt.isRaised { return }
                guard error.exitCode != .unavailable || wasUp else { throw failed(error) }
                queue.backOff(after: error, retry: retry, clock: clock, logger: logger)
                continue
            }
            if firstAttempt { opened(nil) }
            firstAttempt = false
            queue.connected(url, again: wasUp, clock: clock, logger: logger)
            wasUp = true
            isConnected.store(true, ordering: .releasing)
            let sent = send(connection, hub: hub, clock: clock)
            isConnected.store(false, ordering: .releasing)
            let fault = sent.fault
            hub.unsubscribe(self)
            queue.isTaking = false
            end(connection, pictures: sent.pictures)
            guard let fault else { return }
            if ended.isRaised || interrupt.isRaised { throw failed(fault) }
            logger.warning("\(fault); reconnecting")
            counters.link.wentDown(at: clock.now())
            queue.restart()
        }
    }

    /// A connection: the peer, its WHIP session, and the streams it sends.
    private struct Connection {
        let peer: WebRTCPeer
        let session: WHIPSession
        let streams: [StreamDescription]
        /// Where its packets are on the clock, from its first picture on.
        let times: PacketTimes
        /// The picture's stream, whose encoder is this output's own.
        var video: StreamDescription? { streams.first { $0.video != nil } }
    }

    /// Makes a peer connection, hands it the first packets (the offer says the stream's profile),
    /// offers it to the endpoint and waits for ICE and DTLS. What waited meanwhile is dropped, and
    /// the connection starts on a fresh keyframe.
    private func connect(_ streams: [StreamDescription], hub: StreamHub, clock: some PacingClock)
        throws(PodiumError) -> Connection {
        guard let video = streams.first(where: { $0.video != nil }) else {
            throw .software("\(url): no picture to send")
        }
        let sound = streams.contains { $0.audio != nil }
        let peer = try WebRTCPeer(iceServers: endpoint.iceServers, sending: .pictures(sound: sound))
        // Subscribed once the peer's pipeline runs, which cannot send what was taken before it
        // started (a first keyframe waiting meanwhile was lost, and the offer waited for the next,
        // 2 s on); subscribing asks for the keyframe the offer describes.
        queue.isTaking = true
        hub.subscribe(self, to: program)
        var sender = PacketTimes(streams)
        let deadline = clock.now() + 10_000_000_000
        var offer: String?
        // A first few packets describe the streams; more pictures would wait in the peer, to reach
        // the receiver after the connection is up, without the keyframe before them.
        while offer == nil {
            guard !ended.isRaised && !interrupt.isRaised else { throw .io("\(url): the run ended") }
            guard clock.now() < deadline else { throw .io("\(url): no picture came to offer in 10 s") }
            if case .element(let packet) = queue.pop(timeout: 0.1), let placed = sender.place(packet),
               peer.awaits(audio: placed.audio) {
                let sent = peer.send(packet, audio: placed.audio, time: placed.time, duration: placed.duration)
                // A keyframe grabbed before the peer started (in the encoder as it subscribed) cannot
                // be sent: another is asked for, or the offer would wait for the next, seconds on.
                if sent == .tooEarly && packet.isKeyframe && !placed.audio { hub.requestKeyframe(stream: video.id) }
            }
            offer = try peer.makeOffer()
        }
        let endpoint = endpoint
        let session = try WHIPSession.blocking { [offer] () async throws(PodiumError) in
            try await WHIPSession.offer(offer ?? "", to: endpoint)
        }
        let trickle = Trickle(session: session, offer: offer ?? "")
        do {
            try peer.accept(answer: session.answer)
        } catch {
            _ = try? WHIPSession.blocking { () async throws(PodiumError) in await session.end() }
            // The endpoint's own fault, which trying again would not mend.
            throw .unavailable("\(url): the endpoint's answer is not one WebRTC takes (\(error.message))")
        }
        do {
            let connected = try peer.connect(gaveUp: { [interrupt, ended] in
                interrupt.isRaised || ended.isRaised
            }, trickle: trickle.map { trickle in trickle.send })
            logger.notice("""
                \(url): ICE connected \(connected.iceMilliseconds) ms after the answer, DTLS at \
                \(connected.dtlsMilliseconds) ms (\(connected.local) to \(connected.remote))\
                \(trickle?.summary.map { "; \($0)" } ?? "")
                """)
        } catch {
            _ = try? WHIPSession.blocking { () async throws(PodiumError) in await session.end() }
            // The server answered: the way to it may come back (a firewall, a restart), so this is tried again.
            throw PodiumError(.io, "\(url): \(error.message)")
        }
        queue.restart(waitingForKeyframe: true)
        hub.requestKeyframe(stream: video.id)
        return Connection(peer: peer, session: session, streams: streams, times: sender)
    }

    /// Sends packets until the queue is closed (the end, no fault) or the connection fails.
    /// - Returns: the fault, and how many pictures were sent.
    private func send(_ connection: Connection, hub: StreamHub, clock: some PacingClock)
        -> (fault: PodiumError?, pictures: Int) {
        var pictures = 0
        let fault = sending(connection, hub: hub, clock: clock, pictures: &pictures)
        return (fault, pictures)
    }

    private func sending(_ connection: Connection, hub: StreamHub, clock: some PacingClock, pictures: inout Int)
        -> PodiumError? {
        let peer = connection.peer
        guard let video = connection.video, let ceiling = video.bitrate else {
            return .software("\(url): its encoder has no bit rate to follow the network with")
        }
        var rate = NetworkRate(ceiling: ceiling)
        var times = connection.times
        var lastFeedback: UInt64 = 0
        var lastKeyframe: UInt64 = 0
        // A keyframe asked for too soon after the last is made once the spacing has passed.
        var keyframeWanted = false
        // A receiver asks again (NACK) only for packets it knows were sent, those before the last
        // it got: the first keyframe's first packets (its parameter sets) lost, it has nothing to
        // decode until the next keyframe, seconds on, and does not say so (aiortc sends no PLI).
        // A second keyframe soon after the first comes behind packets it has seen.
        var secondKeyframe: UInt64? = clock.now() + Self.secondKeyframeDelay
        // And one when the receiver is first heard from (a report or a request: it has the keys):
        // its end of DTLS may finish seconds after this one under loss (its flights timed out),
        // and what was sent meanwhile, keyframes with it, could not be deciphered.
        var heard = false
        while true {
            switch queue.pop(timeout: 0.05) {
            case .closed:
                return nil
            case .timedOut:
                break
            case .element(let packet):
                guard let placed = times.place(packet) else { continue }
                let start = clock.now()
                let sent = peer.send(packet, audio: placed.audio, time: placed.time, duration: placed.duration)
                if sent == .refused { return .io("\(url): the peer connection stopped taking packets") }
                queue.wrote(packet, nanoseconds: clock.now() - start)
                if !placed.audio { pictures += 1 }
            }
            if interrupt.isRaised { return .io("\(url): cut off") }
            let now = clock.now()
            guard now >= lastFeedback + Self.feedbackInterval else { continue }
            lastFeedback = now
            let feedback = peer.poll()
            logger.debug("\(url): \(feedback)")
            if feedback.state == .failed { return .io("\(url): the WebRTC connection failed") }
            if let silent = feedback.sinceReceiverSpoke, silent > Self.silence {
                return .io("\(url): the receiver has said nothing for \(Int(silent.seconds)) s")
            }
            let firstWord = !heard && feedback.sinceReceiverSpoke != nil
            heard = heard || firstWord
            keyframeWanted = keyframeWanted || feedback.keyframeRequests > 0 || firstWord
            let secondIsDue = secondKeyframe.map { now >= $0 } ?? false
            if secondIsDue || (keyframeWanted && now >= lastKeyframe + Self.keyframeSpacing) {
                secondKeyframe = nil
                (lastKeyframe, keyframeWanted) = (now, false)
                hub.requestKeyframe(stream: video.id)
            }
            if let change = rate.take(feedback, at: now) {
                hub.requestBitrate(StreamHub.BitrateRequest(bitrate: change.to, reason: change.reason),
                                   stream: video.id)
            }
        }
    }

    /// Ends a connection: says what the receiver asked for, deletes the session, closes the peer.
    private func end(_ connection: Connection, pictures: Int) {
        let feedback = connection.peer.poll()
        logger.notice("""
            \(url): sent \(pictures) pictures (\(feedback.videoPackets) packets, \(feedback.retransmitted) again \
            for \(feedback.nacks) NACKs); the receiver asked for \(feedback.keyframesAsked) keyframes
            """)
        let session = connection.session
        _ = try? WHIPSession.blocking { () async throws(PodiumError) in await session.end(timeout: 2) }
    }

    /// Places packets on the clock: their times are on the run's timeline, which the first
    /// picture's grab time pins to the clock (RTP times and sender reports then say when each
    /// picture and each sound was taken, so a receiver lines them up).
    private struct PacketTimes {
        /// Each stream's nanoseconds a tick, by stream id, and whether it is sound.
        private var scales: [Int: (nanosecondsPerTick: Double, audio: Bool)] = [:]
        private var origin: Double?

        init(_ streams: [StreamDescription]) {
            for stream in streams { scales[stream.id] = (1e9 / Double(stream.timeScale), stream.audio != nil) }
        }

        /// When `packet` was taken and how long it lasts, in nanoseconds on the clock; `nil` for
        /// one of no stream here, or from before the first picture.
        mutating func place(_ packet: EncodedPacket) -> (time: UInt64, duration: UInt64, audio: Bool)? {
            guard let scale = scales[packet.streamID] else { return nil }
            let time = Double(packet.presentationTime) * scale.nanosecondsPerTick
            if origin == nil && !scale.audio { origin = Double(packet.captureTime) - time }
            guard let origin, origin + time > 0 else { return nil }
            return (UInt64(origin + time), UInt64(max(0, Double(packet.duration) * scale.nanosecondsPerTick)),
                    scale.audio)
        }
    }

    private func failed(_ error: PodiumError) -> PodiumError { queue.fail(error) }
}
