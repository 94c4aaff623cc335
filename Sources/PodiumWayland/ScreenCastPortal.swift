import CPortal
import Foundation
public import PodiumCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A monitor or window the user shares through the desktop's ScreenCast portal
/// (`org.freedesktop.portal.ScreenCast`): every Wayland desktop's way of letting a program see
/// the screen, the desktop asking the user in a dialog of its own.
///
/// The session lives as long as its connection to the session bus, so a thread of its own holds
/// that connection from the first request to the last (sd-bus connections are one thread's): it
/// asks, waits for the user, then listens for the desktop ending the session and hands out
/// connections to PipeWire as they are asked for, until the portal is let go.
public final class ScreenCastPortal: PipeWireRemote {
    /// What the desktop shared.
    public struct Shared: Sendable {
        /// The PipeWire node to read.
        public var node: UInt32
        /// Its size as the portal says it (in logical pixels on a scaled screen); `nil` when it
        /// does not say.
        public var size: PixelSize?
        /// Its place in the desktop's layout, where the portal says.
        public var origin: (x: Int, y: Int) = (0, 0)
        /// `monitor`, `window` or `virtual monitor`.
        public var kind: String
        /// What to hand to the next run so that the desktop does not ask again; `nil` when the
        /// portal keeps no choice.
        public var restoreToken: String?
        /// The pointer comes apart from the pictures, as the stream's cursor metadata.
        public var cursorAsMetadata = false
    }

    private let link = PortalLink()
    /// What the desktop shared.
    public let shared: Shared

    /// Asks the desktop for a monitor or a window (its dialog, or the choice `restoreToken`
    /// remembers), or for a new virtual monitor, and waits for the answer.
    /// - Parameters:
    ///   - drawsCursor: whether the pointer is drawn into the pictures.
    ///   - virtual: a monitor the desktop makes for the session (`podium extend`, on KDE) rather
    ///     than one of those there.
    ///   - interrupted: asked a few times a second while the user chooses; `true` gives up.
    /// - Throws: 77 when the user cancels the dialog; 69 when there is no portal, it refuses or
    ///   fails, or `interrupted` said so (with the message `interrupted`).
    public init(drawsCursor: Bool, virtual: Bool = false, restoreToken: String?,
                interrupted: @escaping @Sendable () -> Bool) throws(PodiumError) {
        let link = self.link
        let types = UInt32(virtual ? CPORTAL_VIRTUAL : CPORTAL_MONITOR | CPORTAL_WINDOW)
        Thread.detachNamed("podium-portal") {
            Self.hold(types: types, drawsCursor: drawsCursor, restoreToken: restoreToken, interrupted: interrupted,
                      link: link)
            link.finished.signal()
        }
        link.answered.wait()
        switch link.state.withLock({ $0.opened }) {
        case .success(let shared): self.shared = shared
        case .failure(let error): throw error
        case nil: throw .software("the portal's thread ended without an answer")
        }
    }

    deinit {
        link.state.withLock { $0.stopping = true }
        // The thread notices within a wait (a tenth of a second) and closes the session.
        _ = link.finished.wait(timeout: .now() + .seconds(2))
    }

    public var ended: String? { link.state.withLock { $0.ended } }

    public func connect() throws(PodiumError) -> Int32 {
        link.state.withLock { $0.connectionAsked = true }
        guard link.connected.wait(timeout: .now() + .seconds(5)) == .success else {
            throw .unavailable("the portal did not connect to PipeWire within 5 s")
        }
        let connection = link.state.withLock { state in
            defer { state.connection = nil }
            return state.connection
        }
        switch connection {
        case .success(let descriptor): return descriptor
        case .failure(let error): throw error
        case nil: throw .software("the portal's thread answered without a connection")
        }
    }

    /// On the portal's thread: the whole life of the session.
    private static func hold(types: UInt32, drawsCursor: Bool, restoreToken: String?,
                             interrupted: @escaping @Sendable () -> Bool, link: PortalLink) {
        let check = Unmanaged.passRetained(InterruptCheck(interrupted))
        defer { check.release() }
        var session: OpaquePointer?
        var stream = cportal_stream()
        var error = [CChar](repeating: 0, count: 512)
        let code = cportal_open(types, drawsCursor ? 1 : 0, restoreToken,
                                { context in
            guard let context else { return 0 }
            return Unmanaged<InterruptCheck>.fromOpaque(context).takeUnretainedValue().asked() ? 1 : 0
        }, check.toOpaque(), &session, &stream, &error, error.count)
        let said = String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
        guard code == Int32(CPORTAL_OK), let session else {
            let failure: PodiumError = switch code {
            case Int32(CPORTAL_CANCELLED): .refused(said)
            case Int32(CPORTAL_INTERRUPTED): .unavailable("interrupted")
            default: .unavailable(said)
            }
            link.state.withLock { $0.opened = .failure(failure) }
            link.answered.signal()
            return
        }
        defer { cportal_close(session) }
        let token = withUnsafeBytes(of: stream.restore_token) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        let size = stream.width > 0 && stream.height > 0
            ? PixelSize(width: Int(stream.width), height: Int(stream.height)) : nil
        let kind = switch Int(stream.source_type) {
        case CPORTAL_WINDOW: "window"
        case CPORTAL_VIRTUAL: "virtual monitor"
        default: "monitor"
        }
        let shared = Shared(node: stream.node, size: size, origin: (Int(stream.x), Int(stream.y)), kind: kind,
                            restoreToken: token.isEmpty ? nil : token, cursorAsMetadata: stream.cursor_metadata != 0)
        // The exchange's own connection goes to the first who asks (the probe of the first frame).
        var spare: Int32? = stream.fd
        link.state.withLock { $0.opened = .success(shared) }
        link.answered.signal()
        var closed = false
        while !link.state.withLock({ $0.stopping }) {
            if link.state.withLock({ $0.connectionAsked }) {
                var failure = [CChar](repeating: 0, count: 256)
                let descriptor = spare ?? cportal_connect(session, &failure, failure.count)
                spare = nil
                let reason = String(decoding: failure.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
                link.state.withLock { state in
                    state.connectionAsked = false
                    state.connection = descriptor >= 0 ? .success(descriptor) : .failure(.unavailable(
                        closed ? "the desktop stopped sharing the screen" : reason))
                }
                link.connected.signal()
            }
            if !closed, cportal_wait(session, 100_000) != 0 {
                closed = true
                link.state.withLock { $0.ended = "the desktop stopped sharing the \(shared.kind)" }
            } else if closed {
                usleep(100_000)
            }
        }
        if let spare { close(spare) }
    }
}

/// What the portal's thread and the portal's users share.
private final class PortalLink: Sendable {
    struct State {
        /// The result of the exchange, once it ended.
        var opened: Result<ScreenCastPortal.Shared, PodiumError>?
        /// A connection to PipeWire was asked for, and not handed out yet.
        var connectionAsked = false
        var connection: Result<Int32, PodiumError>?
        /// Why the desktop ended the session.
        var ended: String?
        var stopping = false
    }

    let state = Mutex(State())
    /// Signalled when the exchange ended, when a connection was handed out, and when the thread ends.
    let answered = DispatchSemaphore(value: 0)
    let connected = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
}

/// The interruption check handed to C.
final class InterruptCheck: Sendable {
    let asked: @Sendable () -> Bool

    init(_ asked: @escaping @Sendable () -> Bool) {
        self.asked = asked
    }
}
