import Synchronization

/// Fans every packet out to the sinks subscribed now. Sinks subscribe and unsubscribe at any time
/// from any thread; each one's first packet is a keyframe, and a subscription asks the encoder for
/// one, so a newcomer starts at once rather than at the next scheduled keyframe.
///
/// Publishing takes a lock only to read the list of subscribers (a reference, no copy of it) and
/// allocates nothing. Publish from one thread, the encode thread.
public final class PacketHub: Sendable {
    /// The streams whose packets pass through.
    public let streams: [StreamDescription]
    private let subscribers = Mutex<[Subscriber]>([])
    private let keyframeWanted = Atomic<Bool>(false)

    /// A sink and whether it still waits for its first keyframe.
    private final class Subscriber: Sendable {
        let sink: any PacketSink
        let waitingForKeyframe = Atomic<Bool>(true)
        init(_ sink: any PacketSink) { self.sink = sink }
    }

    public init(streams: [StreamDescription]) {
        self.streams = streams
    }

    /// Starts `sink` with the hub's streams; from the next keyframe on, it gets every packet, and
    /// a keyframe is asked for now.
    /// - Throws: what `sink.start` threw; the sink is then not subscribed.
    public func subscribe(_ sink: any PacketSink) throws(PodiumError) {
        try sink.start(streams)
        subscribers.withLock { $0.append(Subscriber(sink)) }
        requestKeyframe()
    }

    /// `sink` gets no more packets (it may still be handed the one being published now).
    public func unsubscribe(_ sink: any PacketSink) {
        subscribers.withLock { $0.removeAll { $0.sink === sink } }
    }

    /// How many sinks are subscribed.
    public var count: Int { subscribers.withLock { $0.count } }

    /// Asks the encoder for a keyframe at its next picture: a viewer joined, or skipped ahead.
    public func requestKeyframe() {
        keyframeWanted.store(true, ordering: .releasing)
    }

    /// Whether a sink joined since the last call, so the next picture should be a keyframe.
    /// Reading clears it; call from the encode thread.
    public func takeKeyframeRequest() -> Bool {
        keyframeWanted.exchange(false, ordering: .acquiringAndReleasing)
    }

    /// Offers `packet` to every subscribed sink that has seen a keyframe, or gets one now.
    public func publish(_ packet: EncodedPacket) {
        let current = subscribers.withLock { $0 }
        // By index: an unoptimized build allocates at each step of the array's iterator here.
        for index in current.indices {
            let subscriber = current[index]
            if subscriber.waitingForKeyframe.load(ordering: .relaxed) {
                guard packet.isKeyframe else { continue }
                subscriber.waitingForKeyframe.store(false, ordering: .relaxed)
            }
            subscriber.sink.offer(packet)
        }
    }
}
