/// What one step of a benchmark measured.
public struct BenchRow: Sendable, Codable, Equatable {
    /// The target rate: a number, or `max`.
    public var target: String
    /// Frames encoded per second.
    public var achievedFPS: Double
    /// Frames grabbed per second; more than encoded when the encoder could not keep up.
    public var capturedFPS: Double
    /// Slots a second with nothing new on screen, which cost nothing.
    public var unchangedFPS: Double
    /// Of those, slots a second drawn on without a pixel changing.
    public var repaintedFPS: Double
    /// Rows converted per frame encoded: the picture's height, or fewer when only changed rows were.
    public var rowsConverted: Double
    /// Frames lost: slots missed, no free buffer, replaced before the encoder took them.
    public var dropped: Int
    /// Podium's CPU, in cores (1.0 = one core busy all the time).
    public var cpuCores: Double
    /// The X server's CPU, when it is Podium's private one.
    public var xServerCores: Double?
    /// What the sound costs (`--audio`): its threads' CPU (capture, mixing, encoding), in cores.
    public var audioCores: Double?
    public var grab: StageTimes
    public var convert: StageTimes
    public var encode: StageTimes
    /// From a frame's grab to its packet leaving the encoder.
    public var latency: StageTimes
    public var mbps: Double
    /// Each encoder (several with `podium bench --ladder`).
    public var renditions: [StatsSample.Rendition]
    /// `met` when the rate was kept: at least 95 % of its slots gave a frame or found nothing new
    /// on screen; `missed` otherwise; `nil` for `max`, which has no rate to keep.
    public var verdict: String?

    /// The encoders' sizes, such as `1920x1080+1280x720`.
    public var ladder: String { renditions.map(\.name).joined(separator: "+") }

    /// Scaling for the smaller encoders together: the sum of their medians, in milliseconds.
    public var scaleMilliseconds: Double { renditions.reduce(0) { $0 + $1.scale.p50 } }

    public init(target: BenchRate, sample: StatsSample, xServerCores: Double?) {
        self.target = target.description
        achievedFPS = sample.encodedFPS
        capturedFPS = sample.capturedFPS
        unchangedFPS = sample.unchangedFPS
        repaintedFPS = sample.repaintedFPS
        rowsConverted = sample.rowsConverted
        // Running flat out, every slot is "missed": those are not losses.
        dropped = sample.drops.total - (target == .max ? sample.drops.skipped : 0)
        cpuCores = sample.cpuCores
        self.xServerCores = xServerCores
        audioCores = sample.sound?.cpuCores
        grab = sample.stages.grab
        convert = sample.stages.convert
        encode = sample.stages.encode
        latency = sample.stages.latency
        mbps = sample.mbps
        renditions = sample.renditions
        verdict = target.framesPerSecond.map { rate in
            achievedFPS + unchangedFPS >= 0.95 * Double(rate) ? "met" : "missed"
        }
    }
}

/// A whole benchmark: what was measured, how, and one row per rate.
public struct BenchReport: Sendable, Codable, Equatable {
    /// The display, the captured area and the content, such as `:1 1920x1080 (scene video)`.
    public var source: String
    /// Output size, codec, encoder and preset, such as `1920x1080 h264 libx264 ultrafast`.
    public var encoding: String
    /// Seconds measured per rate.
    public var seconds: Double
    public var rows: [BenchRow]

    public init(source: String, encoding: String, seconds: Double, rows: [BenchRow]) {
        self.source = source
        self.encoding = encoding
        self.seconds = seconds
        self.rows = rows
    }
}
