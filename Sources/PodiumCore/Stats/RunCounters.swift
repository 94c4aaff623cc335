public import Synchronization

/// What one sink has done so far. Updated by its thread, read by the stats reporter.
public final class SinkCounters: Sendable {
    public let url: String
    public let packets = Atomic<Int>(0)
    public let bytes = Atomic<Int>(0)
    /// Packets this sink dropped because its queue was full (or up to the next keyframe after that).
    public let dropped = Atomic<Int>(0)
    public let failed = Atomic<Bool>(false)
    public let send: StageTimer
    /// The connection of an output that reconnects.
    public let link = LinkCounters()
    /// Clients connected now, for an output that admits them (`?listen`); `nil` for the others.
    public let clients = Atomic<Int>(-1)

    /// Clients connected now, or `nil` when this output admits none.
    public var clientCount: Int? {
        let count = clients.load(ordering: .relaxed)
        return count < 0 ? nil : count
    }

    public init(url: String) {
        self.url = url
        send = StageTimer("send")
    }
}

/// Whether an output that reconnects is up, and how long it has been down. Written by the
/// output's thread, read by the stats reporter; times are `MonotonicClock` nanoseconds.
public final class LinkCounters: Sendable {
    /// When the output went down (0 while it is up, or before it ever was).
    private let downSince = Atomic<UInt64>(0)
    /// Attempts that failed since it went down.
    public let failedAttempts = Atomic<Int>(0)
    /// Times the output went down, and the nanoseconds spent down in those that ended.
    public let outages = Atomic<Int>(0)
    private let downNanoseconds = Atomic<UInt64>(0)

    public init() {}

    /// Connected (again) at `time`.
    public func cameUp(at time: UInt64) {
        let since = downSince.exchange(0, ordering: .relaxed)
        if since > 0 { downNanoseconds.add(time &- min(since, time), ordering: .relaxed) }
        failedAttempts.store(0, ordering: .relaxed)
    }

    /// Not connected from `time` on: it lost its peer, or could not reach it at the start. Counts
    /// one outage however many attempts follow.
    public func wentDown(at time: UInt64) {
        if downSince.compareExchange(expected: 0, desired: max(time, 1), ordering: .relaxed).exchanged {
            outages.add(1, ordering: .relaxed)
        }
    }

    /// A connect attempt failed.
    public func attemptFailed() { failedAttempts.add(1, ordering: .relaxed) }

    /// How long the output has been down at `time`, or `nil` while it is up.
    public func downFor(at time: UInt64) -> Duration? {
        let since = downSince.load(ordering: .relaxed)
        return since == 0 ? nil : .nanoseconds(time &- min(since, time))
    }

    /// The time spent down in outages that ended, plus the current one up to `time`.
    public func timeLost(at time: UInt64) -> Duration {
        .nanoseconds(downNanoseconds.load(ordering: .relaxed)) + (downFor(at: time) ?? .zero)
    }
}

/// What one encoder (one rendition) has done so far. Written by its thread, read by the reporter.
public final class RenditionCounters: Sendable {
    /// The encoding, such as `h264 1280x720 2M`.
    public let name: String
    /// The outputs it feeds, as they are shown.
    public let outputs: [String]
    /// Frames it encoded.
    public let encoded = Atomic<Int>(0)
    /// Frames replaced in its slot before it took them: it fell behind, the others did not wait.
    public let dropped = Atomic<Int>(0)
    public let bytes = Atomic<Int>(0)
    /// Scaling the shared picture to its size (none when it encodes the captured size).
    public let scale = StageTimer("scale")
    public let encode = StageTimer("encode")
    /// From a frame's grab to its packet leaving the encoder.
    public let latency = StageTimer("latency")

    public init(name: String, outputs: [String]) {
        self.name = name
        self.outputs = outputs
    }
}

/// What one source has done so far. Written by its capture thread (or its library's), read by
/// the stats reporter.
public final class SourceCounters: Sendable {
    /// Frames taken from the source.
    public let captured = Atomic<Int>(0)
    /// Pacing slots missed because the loop fell behind.
    public let skipped = Atomic<Int>(0)
    /// Slots with nothing new (damage tracking): nothing was grabbed, or what was grabbed matched
    /// the frame before.
    public let unchanged = Atomic<Int>(0)
    /// Of those, slots where the screen was drawn on without a pixel changing: a damage storm of
    /// repaints costs one look a slot, and nothing after it.
    public let repainted = Atomic<Int>(0)
    /// Slots lost because every frame buffer was still in use downstream.
    public let noBuffer = Atomic<Int>(0)
    public let grab = StageTimer("grab")

    public init() {}
}

/// What one window stage has done so far. Written by its thread, read by the stats reporter.
public final class WindowCounters: Sendable {
    /// Frames drawn in the window.
    public let presented = Atomic<Int>(0)
    /// Frames replaced in the window's slot before the window took them.
    public let dropped = Atomic<Int>(0)
    public let present = StageTimer("present")
    /// What the window is waiting for while it cannot be shown (`HDMI-1`, `display :1`).
    public let awaits = Mutex<String?>(nil)

    public init() {}
}

/// What the encode stage has done so far: the conversion every encoder shares. Written by its
/// thread, read by the stats reporter.
public final class EncodeCounters: Sendable {
    /// Frames the encode stage took and converted for its encoders.
    public let encoded = Atomic<Int>(0)
    /// Frames replaced in the encode stage's slot before it took them, or that found every
    /// picture still read by a slow encoder.
    public let dropped = Atomic<Int>(0)
    /// Rows of the captured picture converted, over every frame taken.
    public let convertedRows = Atomic<Int>(0)
    public let convert = StageTimer("convert")

    public init() {}
}

/// The running totals of one run: each part of the graph has its own counters, with one writer
/// thread each; any thread may read.
public final class RunCounters: Sendable {
    public let targetFPS: Int
    /// One per source.
    public let sources: [SourceCounters]
    public let encode = EncodeCounters()
    /// One per encoder; a run with one encoding has one.
    public let renditions: [RenditionCounters]
    public let sinks: [SinkCounters]
    /// One per window stage (`podium mirror`, `--to window`).
    public let windows: [WindowCounters]
    /// The browser viewers, when the run serves them.
    public let viewers: ViewerBoard?
    /// The run's sound, when it has any.
    public let sound: SoundCounters?

    /// - Parameters:
    ///   - renditions: each encoder's name and the outputs it feeds.
    ///   - windows: how many window stages show the frames.
    ///   - servesViewers: whether the run has a browser viewer (`--to http://…`).
    ///   - sound: the name of the sound's encoding (`aac 128k`) and of each of its sources, when
    ///     the run has sound.
    public init(targetFPS: Int, sources: Int = 1, sinkURLs: [String],
                renditions: [(name: String, outputs: [String])] = [], windows: Int = 0, servesViewers: Bool = false,
                sound: (name: String, sources: [String])? = nil) {
        self.sound = sound.map { SoundCounters(name: $0.name, sources: $0.sources) }
        self.targetFPS = targetFPS
        self.sources = (0..<sources).map { _ in SourceCounters() }
        self.windows = (0..<windows).map { _ in WindowCounters() }
        viewers = servesViewers ? ViewerBoard() : nil
        sinks = sinkURLs.map(SinkCounters.init(url:))
        self.renditions = renditions.map { RenditionCounters(name: $0.name, outputs: $0.outputs) }
    }

    /// What the windows wait for, said once for the stats line.
    public var windowAwaits: String? {
        windows.lazy.compactMap { $0.awaits.withLock { $0 } }.first
    }
}
