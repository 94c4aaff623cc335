import NIOCore
import Synchronization

/// One browser watching: what waits to be sent to it, bounded, and how it keeps up.
///
/// The feed offers frames from the encode thread and never waits; the viewer's own task sends
/// them, as fast as its socket takes them. A viewer that falls behind (more than `maxFrames`
/// or `maxBytes` waiting) loses what waits and skips to the next keyframe: it slows nobody else.
final class Viewer: Sendable {
    /// How the page decodes, which decides the form of the frames it gets.
    enum Decoder: String, Sendable {
        /// WebCodecs `VideoDecoder`: Annex B access units.
        case webcodecs
        /// Media Source Extensions: an fMP4 initialization segment, then a fragment a frame.
        case mse
    }

    /// A message for the page.
    enum Message: Sendable {
        case text(String)
        /// Binary, but not a frame: an initialization segment.
        case data(ByteBuffer)
        case frame(ByteBuffer)
    }

    /// What became of an offered frame.
    enum Outcome: Equatable {
        case queued
        /// Not sent: the viewer waits for a keyframe to start from.
        case waiting
        /// The viewer fell behind: what waited was dropped, and it waits for a keyframe.
        case fellBehind
    }

    let id: Int
    let decoder: Decoder
    /// About a third of a second at 30 fps: a viewer further behind than that starts afresh.
    static let maxFrames = 10
    static let maxBytes = 8 << 20

    private struct State {
        var queue = CircularBuffer<Message>(initialCapacity: 16)
        var frames = 0
        var bytes = 0
        var waitingForKeyframe = true
        /// Waiting because it fell behind (its skipped frames count), not because it just came.
        var resyncing = false
        var waiter: CheckedContinuation<Message?, Never>?
        var finished = false
        var sent = 0
        var skipped = 0
        /// Times it fell behind since the last look (`takeTimesBehind`).
        var timesBehind = 0

        /// `message` leaves the queue for the socket.
        mutating func account(_ message: Message) {
            guard case .frame(let buffer) = message else { return }
            frames -= 1
            bytes -= buffer.readableBytes
            sent += 1
        }

        mutating func dropFrames() {
            queue.removeAll { if case .frame = $0 { true } else { false } }
            frames = 0
            bytes = 0
        }
    }
    private let state = Mutex(State())

    init(id: Int, decoder: Decoder) {
        self.id = id
        self.decoder = decoder
    }

    /// Offers one frame. A viewer waiting for a keyframe starts at one, after `start` (its
    /// stream's codec parameters), so whatever it watched before, it can decode from here.
    func offer(_ frame: ByteBuffer, isKeyframe: Bool, start: () -> [Message]) -> Outcome {
        var resume: (CheckedContinuation<Message?, Never>, Message)?
        let outcome = state.withLock { state -> Outcome in
            guard !state.finished else { return .waiting }
            if !state.waitingForKeyframe && (state.frames >= Self.maxFrames
                                             || state.bytes + frame.readableBytes > Self.maxBytes) {
                state.skipped += state.frames
                state.timesBehind += 1
                state.dropFrames()
                state.waitingForKeyframe = true
                state.resyncing = true
            }
            if state.waitingForKeyframe {
                guard isKeyframe else {
                    if state.resyncing { state.skipped += 1 }
                    return state.resyncing ? .fellBehind : .waiting
                }
                state.waitingForKeyframe = false
                state.resyncing = false
                for message in start() { state.queue.append(message) }
            }
            state.queue.append(.frame(frame))
            state.frames += 1
            state.bytes += frame.readableBytes
            if let waiter = state.waiter, let first = state.queue.popFirst() {
                state.waiter = nil
                state.account(first)
                resume = (waiter, first)
            }
            return .queued
        }
        if let (waiter, message) = resume { waiter.resume(returning: message) }
        return outcome
    }

    /// Sends `message` ahead of the frames waiting (a pong), or after them (`inOrder`).
    func send(_ message: Message, inOrder: Bool = false) {
        let waiter = state.withLock { state -> CheckedContinuation<Message?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            if inOrder { state.queue.append(message) } else { state.queue.prepend(message) }
            return nil
        }
        waiter?.resume(returning: message)
    }

    /// Starts again from the next keyframe, with its stream's parameters: it moves to another rendition.
    func restart() {
        state.withLock { state in
            state.dropFrames()
            state.waitingForKeyframe = true
        }
    }

    /// The next message to send, waiting for one; `nil` once the viewer is finished.
    func next() async -> Message? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Message?? in
                    if let message = state.queue.popFirst() {
                        state.account(message)
                        return .some(message)
                    }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish()
        }
    }

    /// No more messages: the stream ended, or the page went away.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Message?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Frames sent and skipped so far.
    var counts: (sent: Int, skipped: Int) { state.withLock { ($0.sent, $0.skipped) } }

    /// How many times it fell behind since the last call.
    func takeTimesBehind() -> Int {
        state.withLock { state in
            defer { state.timesBehind = 0 }
            return state.timesBehind
        }
    }
}
