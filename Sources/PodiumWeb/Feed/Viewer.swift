import NIOCore
import Synchronization

/// One browser watching: what waits to be sent to it, bounded, and how it keeps up.
///
/// The feed offers frames from the encode thread, and sound packets from the sound thread, and
/// never waits; the viewer's own task sends them, as fast as its socket takes them. A viewer that
/// falls behind (more than `maxFrames`, `maxSoundPackets` or `maxBytes` waiting) loses what waits
/// and skips to the next keyframe, its sound with it: it slows nobody else.
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
        /// A sound packet: raw for WebCodecs, an fMP4 fragment for Media Source Extensions.
        case sound(ByteBuffer)
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
    /// The sound codecs its page can play (`mp4a.40.2`, `opus`), as its hello said: it is sent
    /// the run's sound only in one of them.
    let soundCodecs: [String]
    /// About a third of a second at 30 fps: a viewer further behind than that starts afresh.
    static let maxFrames = 10
    /// Half a second of sound (20 to 21 ms a packet) is as far behind. Counted apart from frames:
    /// 50 small packets a second would otherwise fill the frames' bound in a fifth of a second,
    /// and on a still screen, where no frames come, the bytes' bound would let minutes of sound
    /// wait.
    static let maxSoundPackets = 25
    /// Frames and sound together.
    static let maxBytes = 8 << 20

    private struct State {
        var queue = CircularBuffer<Message>(initialCapacity: 16)
        var frames = 0
        var soundPackets = 0
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
            switch message {
            case .frame(let buffer):
                frames -= 1
                bytes -= buffer.readableBytes
                sent += 1
            case .sound(let buffer):
                soundPackets -= 1
                bytes -= buffer.readableBytes
            case .text, .data:
                break
            }
        }

        /// Drops the frames and sound waiting; what configures the page stays.
        mutating func dropMedia() {
            queue.removeAll {
                switch $0 {
                case .frame, .sound: true
                case .text, .data: false
                }
            }
            frames = 0
            soundPackets = 0
            bytes = 0
        }

        /// When another `size` bytes would pass a bound, the viewer fell behind: what waits is
        /// dropped, and it waits for a keyframe.
        mutating func fallBehindIfFull(adding size: Int, isFrame: Bool) {
            guard !waitingForKeyframe else { return }
            let full = isFrame ? frames >= Viewer.maxFrames : soundPackets >= Viewer.maxSoundPackets
            guard full || bytes + size > Viewer.maxBytes else { return }
            skipped += frames
            timesBehind += 1
            dropMedia()
            waitingForKeyframe = true
            resyncing = true
        }

        /// Queues `message`; hands the oldest message to a waiting sender, which the caller resumes
        /// outside the lock.
        mutating func enqueue(_ message: Message) -> (CheckedContinuation<Message?, Never>, Message)? {
            queue.append(message)
            guard let waiter, let first = queue.popFirst() else { return nil }
            self.waiter = nil
            account(first)
            return (waiter, first)
        }
    }
    private let state = Mutex(State())

    init(id: Int, decoder: Decoder, soundCodecs: [String] = []) {
        self.id = id
        self.decoder = decoder
        self.soundCodecs = soundCodecs
    }

    /// Whether it fell behind and waits for a keyframe to go on from.
    var isResyncing: Bool { state.withLock { $0.resyncing } }

    /// Offers one frame. A viewer waiting for a keyframe starts at one, after `start` (its
    /// stream's codec parameters), so whatever it watched before, it can decode from here.
    func offer(_ frame: ByteBuffer, isKeyframe: Bool, start: () -> [Message]) -> Outcome {
        var resume: (CheckedContinuation<Message?, Never>, Message)?
        let outcome = state.withLock { state -> Outcome in
            guard !state.finished else { return .waiting }
            state.fallBehindIfFull(adding: frame.readableBytes, isFrame: true)
            if state.waitingForKeyframe {
                guard isKeyframe else {
                    if state.resyncing { state.skipped += 1 }
                    return state.resyncing ? .fellBehind : .waiting
                }
                state.waitingForKeyframe = false
                state.resyncing = false
                for message in start() { state.queue.append(message) }
            }
            state.frames += 1
            state.bytes += frame.readableBytes
            resume = state.enqueue(.frame(frame))
            return .queued
        }
        if let (waiter, message) = resume { waiter.resume(returning: message) }
        return outcome
    }

    /// Offers one sound packet. A viewer waiting for a keyframe gets none: its sound starts with
    /// its picture.
    func offerSound(_ packet: ByteBuffer) -> Outcome {
        var resume: (CheckedContinuation<Message?, Never>, Message)?
        let outcome = state.withLock { state -> Outcome in
            guard !state.finished else { return .waiting }
            state.fallBehindIfFull(adding: packet.readableBytes, isFrame: false)
            guard !state.waitingForKeyframe else { return state.resyncing ? .fellBehind : .waiting }
            state.soundPackets += 1
            state.bytes += packet.readableBytes
            resume = state.enqueue(.sound(packet))
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
            state.dropMedia()
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
