public import Logging
import Synchronization

/// What every output with a thread of its own keeps in front of it: a bounded queue of the
/// packets offered while it is open (a drop discards that stream's packets up to its next
/// keyframe, so a slow output never holds up the encoders or the other outputs), the flags that
/// end it, and its counters.
///
/// Thread-safe: `offer` and `close` from anywhere; the rest on the output's thread.
public final class OutputQueue: Sendable {
    public let counters: SinkCounters
    /// Raised by `close`: the run is over, no reconnection is tried.
    public let ended = StopFlag()
    /// Raised to give up blocking I/O now, even mid-write.
    public let interrupt = StopFlag()
    private let queue: BoundedQueue<KeyframeGate>
    /// Subscribed and taking packets; packets offered outside that time are not for this output.
    private let isOpen = Atomic<Bool>(false)

    /// - Parameter capacity: packets that may wait; about two seconds of pictures and sound.
    public init(capacity: Int, counters: SinkCounters) {
        self.counters = counters
        queue = BoundedQueue(capacity: capacity, policy: KeyframeGate())
    }

    /// Queues `packet` while open, unless the drop policy refuses it (the queue is full, or a
    /// packet of its stream was dropped since that stream's last keyframe). Never blocks.
    public func offer(_ packet: EncodedPacket) {
        guard isOpen.load(ordering: .acquiring) else { return }
        if queue.push(packet) == .dropped { counters.dropped.add(1, ordering: .relaxed) }
    }

    /// Whether packets are taken now.
    public var isTaking: Bool {
        get { isOpen.load(ordering: .acquiring) }
        set { isOpen.store(newValue, ordering: .releasing) }
    }

    /// Whether the run is over or the output was cut off.
    public var isStopped: Bool { ended.isRaised || interrupt.isRaised }

    /// The next packet, waiting for one; `nil` once closed and emptied.
    public func pop() -> EncodedPacket? { queue.pop() }

    /// The next packet, waiting at most `timeout` seconds.
    public func pop(timeout: Double) -> BoundedQueue<KeyframeGate>.Popped { queue.pop(timeout: timeout) }

    /// Forgets what waits, for a new connection: it starts on a keyframe of each stream when
    /// `waitingForKeyframe`, or at the first packet after a drop otherwise.
    public func restart(waitingForKeyframe: Bool = false) {
        queue.removeAll(policy: KeyframeGate(waitingForKeyframe: waitingForKeyframe))
    }

    /// No more packets: what is queued is still popped, then `pop` says so.
    public func close() {
        ended.raise()
        queue.close()
    }

    /// Counts a packet written, and how long writing it took.
    public func wrote(_ packet: EncodedPacket, nanoseconds: UInt64) {
        counters.send.record(nanoseconds: nanoseconds)
        counters.packets.add(1, ordering: .relaxed)
        counters.bytes.add(packet.size, ordering: .relaxed)
    }

    public var hasWritten: Bool { counters.packets.load(ordering: .relaxed) > 0 }
    public var hasFailed: Bool { counters.failed.load(ordering: .relaxed) }

    /// Takes no more packets; `required`: the output the user named failed for good (a guest
    /// that left is no failure of the output it joined).
    /// - Returns: `error`, to throw.
    public func fail(_ error: PodiumError, required: Bool = true) -> PodiumError {
        queue.close()
        if required { counters.failed.store(true, ordering: .relaxed) }
        return error
    }

    /// After a failed attempt to connect: counted, said the first time, and waited out with
    /// backoff (cut short when the run ends or the output is cut off).
    public func backOff(after error: PodiumError, retry: Backoff, clock: any PacingClock, logger: Logger) {
        counters.link.wentDown(at: clock.now())
        counters.link.attemptFailed()
        let failures = counters.link.failedAttempts.load(ordering: .relaxed)
        let delay = retry.delay(afterFailures: failures)
        if failures == 1 { logger.warning("\(error); trying again in \(Int(delay.seconds)) s") }
        clock.sleep(for: delay) { isStopped }
    }

    /// A connection is up: said, with how long it was down, when it had been down.
    /// - Parameter again: whether it was up before in this run.
    public func connected(_ name: String, again: Bool, clock: any PacingClock, logger: Logger) {
        if let down = counters.link.downFor(at: clock.now()) {
            logger.notice("\(name): connected\(again ? " again" : "") after \(down.seconds.fixed()) s down")
        }
        counters.link.cameUp(at: clock.now())
    }
}
