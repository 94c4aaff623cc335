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

    public init(url: String) {
        self.url = url
        send = StageTimer("send")
    }
}

/// The running totals of one pipeline. Each counter has one writer thread; any thread may read.
public final class PipelineCounters: Sendable {
    public let targetFPS: Int
    /// Frames grabbed from the screen.
    public let captured = Atomic<Int>(0)
    /// Pacing slots missed because the loop fell behind.
    public let skipped = Atomic<Int>(0)
    /// Slots with nothing new on screen (damage tracking): nothing was grabbed.
    public let unchanged = Atomic<Int>(0)
    /// Slots lost because every frame buffer was still in use downstream.
    public let noBuffer = Atomic<Int>(0)
    /// Frames replaced in the encode slot before the encoder took them.
    public let encodeDropped = Atomic<Int>(0)
    /// Frames handed to the encoder.
    public let encoded = Atomic<Int>(0)
    /// Bytes the encoder produced.
    public let encodedBytes = Atomic<Int>(0)
    public let grab = StageTimer("grab")
    public let convert = StageTimer("convert")
    public let encode = StageTimer("encode")
    /// From a frame's grab to its packet leaving the encoder.
    public let latency = StageTimer("latency")
    public let sinks: [SinkCounters]
    /// Whether a window shows the frames (`podium mirror`).
    public let hasWindow: Bool
    /// Frames drawn in the window.
    public let presented = Atomic<Int>(0)
    /// Frames replaced in the window slot before the window took them.
    public let windowDropped = Atomic<Int>(0)
    public let present = StageTimer("present")

    public init(targetFPS: Int, sinkURLs: [String], hasWindow: Bool = false) {
        self.targetFPS = targetFPS
        self.hasWindow = hasWindow
        sinks = sinkURLs.map(SinkCounters.init(url:))
    }
}
