/// An output of a run with a thread of its own: a recording, a network push, a listener that
/// admits clients. It opens on that thread, subscribes to its program on the run's hub, and writes
/// until it is closed.
///
/// Thread-safe: `run` is the output's thread; the others are called from anywhere.
public protocol RunOutput: AnyObject, Sendable {
    /// How messages name it (`talk.mkv`, `rtmp://host/app/••••`).
    var name: String { get }
    /// The streams it writes.
    var program: Program { get }
    /// Whether capture waits for its first attempt to open (a file gets the first frame), rather
    /// than starting while it connects (a peer that may come later).
    var opensAtOnce: Bool { get }
    /// Whether it writes here (a file, an HLS folder): failing to open it is the user's to fix,
    /// and ends the run before capture starts.
    var isLocal: Bool { get }
    /// Whether it wrote anything yet.
    var hasWritten: Bool { get }
    /// Whether it failed for good (not stopped on purpose).
    var hasFailed: Bool { get }
    /// The output's thread: opens, subscribes to `program` on `hub`, writes until `close`, and
    /// (if it retries) reconnects after a fault.
    /// - Parameter opened: told once how the first attempt to open went.
    /// - Throws: the fault that ended it; nothing when the run stopped it.
    func run(hub: StreamHub, clock: any PacingClock, opened: (PodiumError?) -> Void) throws(PodiumError)
    /// No more packets: it writes what is queued and finishes.
    func close()
    /// Gives up blocking I/O now, even mid-write: for a destination that stopped taking packets.
    func abort()
    /// Gives up only if it is not open yet (a connect still trying): the run is stopping.
    func abortIfOpening()
}

/// A sink with no thread of its own that comes and goes with the run's outputs, and whose failure
/// ends nothing: a browser viewers' feed, fed directly on the encoders' threads.
public protocol GuestSink: PacketSink {
    /// The streams it takes.
    var program: Program { get }
    /// Gets ready for packets of `streams`, before it is subscribed.
    /// - Throws: when it cannot take them; it is then not subscribed.
    func start(_ streams: [StreamDescription]) throws(PodiumError)
    /// No more packets.
    func close()
}
