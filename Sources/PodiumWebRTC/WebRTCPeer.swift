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
    /// The offer, with every candidate gathered in it (no trickle needed on the other side).
    public let offer: String

    /// How it connected.
    public struct Connection: Sendable {
        /// Milliseconds from the answer to ICE connected, and to DTLS done.
        public var iceMilliseconds: Int
        public var dtlsMilliseconds: Int
        /// The candidates of the pair in use, as `type address:port`.
        public var local: String
        public var remote: String
    }

    /// Makes the peer connection and its offer.
    /// - Parameters:
    ///   - iceServers: `stun://host:port` and `turn://user:pass@host:port` (GStreamer's forms).
    ///   - gatherMilliseconds: how long candidates are gathered at most.
    /// - Throws: 69 when GStreamer's WebRTC is not there or makes no offer.
    public init(iceServers: [String] = [], gatherMilliseconds: Int = 3_000) throws(PodiumError) {
        let (handle, offer) = try Self.open(iceServers: iceServers, gatherMilliseconds: gatherMilliseconds)
        self.handle = Mutex(handle)
        self.offer = offer
    }

    private static func open(iceServers: [String], gatherMilliseconds: Int) throws(PodiumError)
        -> sending (Handle, String) {
        var error = [CChar](repeating: 0, count: 512)
        var offer: UnsafeMutablePointer<CChar>?
        let opened = iceServers.withCStrings { servers in
            cwebrtc_open(servers, Int32(iceServers.count), Int32(gatherMilliseconds), &offer, &error, error.count)
        }
        guard let opened, let offer else { throw .unavailable(text(error)) }
        defer { cwebrtc_free(offer) }
        return (Handle(opened), String(cString: offer))
    }

    /// Takes the answer, and waits for ICE and DTLS to connect.
    /// - Throws: 69 when the answer cannot be taken, or they do not connect within `timeout` seconds.
    public func connect(answer: String, timeout: Double = 10) throws(PodiumError) -> Connection {
        try handle.withLock { handle throws(PodiumError) in
            let peer = handle.pointer
            var error = [CChar](repeating: 0, count: 512)
            guard cwebrtc_answer(peer, answer, &error, error.count) == 0 else { throw .unavailable(Self.text(error)) }
            var dtls: Int32 = -1
            let ice = cwebrtc_wait_connected(peer, Int32(timeout * 1_000), &dtls, &error, error.count)
            guard ice >= 0 else { throw .unavailable(Self.text(error)) }
            var (local, remote) = ([CChar](repeating: 0, count: 128), [CChar](repeating: 0, count: 128))
            cwebrtc_selected(peer, &local, local.count, &remote, remote.count)
            return Connection(iceMilliseconds: Int(ice), dtlsMilliseconds: Int(dtls), local: Self.text(local),
                              remote: Self.text(remote))
        }
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
