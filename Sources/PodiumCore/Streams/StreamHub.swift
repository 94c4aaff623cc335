import Synchronization

/// One per run: every encoder registers its stream here and publishes its packets here, and every
/// output subscribes to a *program*, the streams it writes. Outputs join and leave at any time
/// from any thread; a newcomer starts on a keyframe of its program's first stream (the picture),
/// and asks that stream's encoder for one, so it starts at once rather than at the next scheduled
/// keyframe.
///
/// Publishing takes a lock only to read the list of subscribers (a reference, no copy of it) and
/// allocates nothing. Encoders publish from their own threads.
public final class StreamHub: Sendable {
    private struct Subscriber: Sendable {
        let sink: any PacketSink
        let mask: UInt64
        /// The stream a newcomer waits for a keyframe of, and whether it still waits.
        let leading: Int
        let waiting: Waiting
    }

    private final class Waiting: Sendable {
        let forKeyframe = Atomic<Bool>(true)
    }

    private let described = Mutex<[StreamDescription?]>([])
    private let subscribers = Mutex<[Subscriber]>([])
    private let unsubscribed = Atomic<Int>(0)
    /// A bit per stream whose encoder should make its next picture a keyframe.
    private let keyframesWanted = Atomic<UInt64>(0)
    /// A bit per stream whose encoder has a bit rate asked of it by its output, and what was asked.
    private let bitratesAsked = Atomic<UInt64>(0)
    private let bitrates = Mutex<[Int: BitrateRequest]>([:])

    public init() {}

    // MARK: Streams

    /// Reserves a stream id for an encoder that will describe its stream once it opens.
    public func addStream() -> Int {
        described.withLock { streams in
            precondition(streams.count < 64, "a run carries at most 64 streams")
            streams.append(nil)
            return streams.count - 1
        }
    }

    /// An encoder opened: what its stream is (`stream.id` is the id it reserved).
    public func describe(_ stream: StreamDescription) {
        described.withLock { streams in
            guard streams.indices.contains(stream.id) else { return }
            streams[stream.id] = stream
        }
    }

    /// The description of each stream of `program`, in its order; those not described yet are left out.
    public func streams(of program: Program) -> [StreamDescription] {
        described.withLock { streams in
            program.streams.compactMap { streams.indices.contains($0) ? streams[$0] : nil }
        }
    }

    /// Every stream described so far.
    public var streams: [StreamDescription] { described.withLock { $0.compactMap { $0 } } }

    // MARK: Subscribers

    /// `sink` gets every packet of `program` from the next keyframe of its first stream on; a
    /// keyframe of that stream is asked for now.
    public func subscribe(_ sink: any PacketSink, to program: Program) {
        let leading = program.streams.first ?? 0
        subscribers.withLock {
            $0.append(Subscriber(sink: sink, mask: program.mask, leading: leading, waiting: Waiting()))
        }
        requestKeyframe(stream: leading)
    }

    /// `sink` gets no more packets (it may still be handed the one being published now).
    public func unsubscribe(_ sink: any PacketSink) {
        subscribers.withLock { $0.removeAll { $0.sink === sink } }
        unsubscribed.add(1, ordering: .relaxed)
    }

    /// How many sinks are subscribed.
    public var count: Int { subscribers.withLock { $0.count } }

    /// How many sinks have unsubscribed since the run began.
    public var departures: Int { unsubscribed.load(ordering: .relaxed) }

    // MARK: Keyframes

    /// Asks the encoder of `stream` for a keyframe at its next picture: a viewer joined, or skipped ahead.
    public func requestKeyframe(stream: Int) {
        keyframesWanted.bitwiseOr(1 << UInt64(stream & 63), ordering: .releasing)
    }

    /// Whether a keyframe of any stream was asked for and not taken yet.
    public var isKeyframeWanted: Bool { keyframesWanted.load(ordering: .relaxed) != 0 }

    /// Whether a keyframe of `stream` was asked for since the last call. Reading clears it; call
    /// from the stream's encoder thread.
    public func takeKeyframeRequest(stream: Int) -> Bool {
        let bit: UInt64 = 1 << UInt64(stream & 63)
        return keyframesWanted.bitwiseAnd(~bit, ordering: .acquiringAndReleasing).oldValue & bit != 0
    }

    // MARK: Bit rates

    /// What an output whose receiver gives feedback (WebRTC) asks of its stream's encoder.
    public struct BitrateRequest: Sendable, Equatable {
        /// At most this, within the encoder's own planned rate.
        public var bitrate: Bitrate
        /// Why, in a few words (`6 % lost`).
        public var reason: String

        public init(bitrate: Bitrate, reason: String) {
            self.bitrate = bitrate
            self.reason = reason
        }
    }

    /// Asks the encoder of `stream` for at most `request`'s bit rate from its next picture on.
    public func requestBitrate(_ request: BitrateRequest, stream: Int) {
        bitrates.withLock { $0[stream] = request }
        bitratesAsked.bitwiseOr(1 << UInt64(stream & 63), ordering: .releasing)
    }

    /// The bit rate asked of `stream` since the last call, if one was. Call from the stream's
    /// encoder thread; it costs an atomic read a picture while nothing is asked.
    public func takeBitrateRequest(stream: Int) -> BitrateRequest? {
        let bit: UInt64 = 1 << UInt64(stream & 63)
        guard bitratesAsked.bitwiseAnd(~bit, ordering: .acquiringAndReleasing).oldValue & bit != 0 else { return nil }
        return bitrates.withLock { $0[stream] }
    }

    // MARK: Packets

    /// Offers `packet` to every subscriber whose program carries its stream and that has seen its
    /// program's first keyframe, or gets it now.
    public func publish(_ packet: EncodedPacket) {
        let bit: UInt64 = 1 << UInt64(packet.streamID & 63)
        let current = subscribers.withLock { $0 }
        // By index: an unoptimized build allocates at each step of the array's iterator here.
        var index = 0
        while index < current.count {
            defer { index += 1 }
            let subscriber = current[index]
            guard subscriber.mask & bit != 0 else { continue }
            if subscriber.waiting.forKeyframe.load(ordering: .relaxed) {
                guard packet.isKeyframe, packet.streamID == subscriber.leading else { continue }
                subscriber.waiting.forKeyframe.store(false, ordering: .relaxed)
            }
            subscriber.sink.offer(packet)
        }
    }
}
