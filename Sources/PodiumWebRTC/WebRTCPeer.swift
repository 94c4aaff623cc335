import CWebRTC
public import PodiumCore
import Synchronization

/// A peer connection that publishes H.264 and Opus (WHIP's side), made of GStreamer's webrtcbin:
/// ICE by libnice, DTLS by OpenSSL, SRTP by libsrtp2; Podium writes none of it. Its calls block:
/// make them off the cooperative pool.
public final class WebRTCPeer: Sendable {
    private let handle: Mutex<Handle>

    /// webrtcbin's pipeline, used under the lock.
    private final class Handle {
        let pointer: OpaquePointer

        init(_ pointer: OpaquePointer) {
            self.pointer = pointer
        }

        deinit { cwebrtc_close(pointer) }
    }
    /// What it sends.
    public enum Media: Sendable {
        /// Nothing: it only connects (`podium whip-check`).
        case none
        /// H.264 pictures, and Opus sound with `sound`.
        case pictures(sound: Bool)
    }

    /// How it connected.
    public struct Connection: Sendable {
        /// Milliseconds from the answer to ICE connected, and to DTLS done.
        public var iceMilliseconds: Int
        public var dtlsMilliseconds: Int
        /// The candidates of the pair in use, as `type address:port`.
        public var local: String
        public var remote: String
    }

    /// Makes the peer connection.
    /// - Parameter iceServers: `stun://host:port` and `turn://user:pass@host:port` (GStreamer's forms).
    /// - Throws: 69 when GStreamer's WebRTC is not there.
    public init(iceServers: [String] = [], sending media: Media = .none) throws(PodiumError) {
        handle = Mutex(try Self.open(iceServers: iceServers, media: media))
    }

    /// Runs `body` while the process's DTLS certificate (a quarter of a second of a core) is made
    /// beside it, the first time in a process, for the peers `body` makes, whose first offer
    /// would otherwise wait for it; returns once it is made.
    public static func preparing<Result, Failure: Error>(_ body: () throws(Failure) -> Result)
        throws(Failure) -> Result {
        let thread = cwebrtc_prepare()
        defer { cwebrtc_prepared(thread) }
        return try body()
    }

    private static func open(iceServers: [String], media: Media) throws(PodiumError) -> sending Handle {
        var error = [CChar](repeating: 0, count: 512)
        let flags: Int32 = switch media {
        case .none: 0
        case .pictures(let sound): Int32(CWEBRTC_VIDEO) | (sound ? Int32(CWEBRTC_AUDIO) : 0)
        }
        let opened = iceServers.withCStrings { servers in
            cwebrtc_open(servers, Int32(iceServers.count), flags, &error, error.count)
        }
        guard let opened else { throw .unavailable(text(error)) }
        return Handle(opened)
    }

    /// How long an offer waits for candidates to be gathered. Host candidates take milliseconds; a
    /// STUN or TURN server's take a round trip, two with TURN's challenge, and one that does not
    /// answer holds gathering for seconds: what comes after goes by trickle, where the server takes it.
    public static let gatherMilliseconds = 1_000

    /// The offer, with the candidates gathered within `gatherMilliseconds` in it (every one unless
    /// a server is slow). A peer that sends makes it once a first picture (a keyframe) and sound
    /// went in: it says the profile the encoder chose.
    /// - Returns: `nil` while packets are still awaited.
    /// - Throws: 69 when WebRTC makes no offer.
    public func makeOffer(gatherMilliseconds: Int = WebRTCPeer.gatherMilliseconds) throws(PodiumError) -> String? {
        try handle.withLock { handle throws(PodiumError) in
            var error = [CChar](repeating: 0, count: 512)
            guard let offer = cwebrtc_offer(handle.pointer, Int32(gatherMilliseconds), &error, error.count) else {
                let waits = cwebrtc_awaits(handle.pointer, 0) != 0 || cwebrtc_awaits(handle.pointer, 1) != 0
                if waits { return nil }
                throw .unavailable(Self.text(error))
            }
            defer { cwebrtc_free(offer) }
            return String(cString: offer)
        }
    }

    /// Candidates gathered after the offer went (`a=candidate:…` lines), and whether gathering is over.
    public struct LateCandidates: Sendable, Equatable {
        public var lines: [String]
        public var complete: Bool
    }

    /// Takes the answer to the offer.
    /// - Throws: 69 when WebRTC refuses it (not an SDP, or not an answer to this offer).
    public func accept(answer: String) throws(PodiumError) {
        try handle.withLock { handle throws(PodiumError) in
            var error = [CChar](repeating: 0, count: 512)
            guard cwebrtc_answer(handle.pointer, answer, &error, error.count) == 0 else {
                throw .unavailable(Self.text(error))
            }
        }
    }

    /// Waits for ICE and DTLS to connect, once the answer is taken.
    /// - Parameters:
    ///   - gaveUp: asked every 100 ms whether to stop waiting (the run is ending).
    ///   - trickle: handed the candidates gathered since the offer as they come, and once when
    ///     gathering is over; `nil`: they are not wanted (the server takes none).
    /// - Throws: 69 when they do not connect within `timeout` seconds.
    public func connect(timeout: Double = 10, gaveUp: () -> Bool = { false },
                        trickle: ((LateCandidates) -> Void)? = nil) throws(PodiumError) -> Connection {
        try handle.withLock { handle throws(PodiumError) in
            let peer = handle.pointer
            var error = [CChar](repeating: 0, count: 512)
            let clock = MonotonicClock()
            let deadline = clock.now() + UInt64(timeout * 1e9)
            var dtls: Int32 = -1
            var ice: Int32 = -2
            var gathered = false
            // In slices, so a run that ends does not wait for a peer that never answers.
            while ice == -2 && clock.now() < deadline && !gaveUp() {
                if let trickle, !gathered, let late = Self.lateCandidates(peer) {
                    gathered = late.complete
                    trickle(late)
                }
                ice = cwebrtc_wait_connected(peer, 100, &dtls, &error, error.count)
            }
            guard ice >= 0 else {
                if ice == -2 { throw .unavailable("\(Self.text(error)) within \(Int(timeout)) s") }
                throw .unavailable(Self.text(error))
            }
            var (local, remote) = ([CChar](repeating: 0, count: 128), [CChar](repeating: 0, count: 128))
            cwebrtc_selected(peer, &local, local.count, &remote, remote.count)
            return Connection(iceMilliseconds: Int(ice), dtlsMilliseconds: Int(dtls), local: Self.text(local),
                              remote: Self.text(remote))
        }
    }

    /// The candidates gathered since the last taken, when there are any or gathering just ended.
    private static func lateCandidates(_ peer: OpaquePointer) -> LateCandidates? {
        var buffer = [CChar](repeating: 0, count: 8_192)
        var complete: Int32 = 0
        let taken = cwebrtc_late_candidates(peer, &buffer, buffer.count, &complete)
        guard taken > 0 || complete != 0 else { return nil }
        let lines = text(buffer).split(whereSeparator: \.isNewline).map(String.init)
        return LateCandidates(lines: lines, complete: complete != 0)
    }

    /// Whether it still waits for packets of pictures (or sound) before it can make its offer.
    public func awaits(audio: Bool) -> Bool {
        handle.withLock { cwebrtc_awaits($0.pointer, audio ? 1 : 0) != 0 }
    }

    /// What became of a packet handed to `send`.
    public enum Sending: Sendable {
        case sent
        /// Taken before the peer started, which cannot place it on its clock: not sent.
        case tooEarly
        /// The connection no longer takes packets.
        case refused
    }

    /// Sends a picture's packet (H.264, Annex B) or a sound's (Opus), taken at `time` (on
    /// `MonotonicClock`, nanoseconds) and lasting `duration` nanoseconds.
    public func send(_ packet: EncodedPacket, audio: Bool, time: UInt64, duration: UInt64) -> Sending {
        let sent = handle.withLock { handle in
            packet.payload.withUnsafeBytes { bytes in
                cwebrtc_send(handle.pointer, audio ? 1 : 0, bytes.baseAddress, bytes.count, time, duration)
            }
        }
        return switch sent {
        case 0: .sent
        case 1: .tooEarly
        default: .refused
        }
    }

    /// The connection's state and what the receiver said since the last call.
    public func poll() -> WebRTCFeedback {
        var feedback = cwebrtc_feedback()
        handle.withLock { cwebrtc_poll($0.pointer, &feedback) }
        return WebRTCFeedback(
            state: feedback.state > 0 ? .connected : feedback.state < 0 ? .failed : .connecting,
            keyframeRequests: Int(feedback.keyframe_requests),
            receiverEstimate: feedback.remb_bps > 0 ? Bitrate(bitsPerSecond: Int(feedback.remb_bps)) : nil,
            sinceReceiverSpoke: feedback.rtcp_age_ms < 0 ? nil : .milliseconds(feedback.rtcp_age_ms),
            report: feedback.report == 0 ? nil : ReceiverReport(
                sequence: feedback.report, fractionLost: feedback.fraction_lost,
                roundTrip: feedback.round_trip_ms < 0 ? nil : feedback.round_trip_ms / 1_000),
            videoPackets: Int(feedback.video_packets), retransmitted: Int(feedback.retransmitted),
            nacks: Int(feedback.nacks), keyframesAsked: Int(feedback.keyframes_asked))
    }

    private static func text(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
    }
}

#if canImport(Glibc)
import Glibc
#endif

extension Array where Element == String {
    /// The strings as a C array of C strings, for the length of `body`.
    fileprivate func withCStrings<Result>(_ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> Result) -> Result {
        let copies = map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
