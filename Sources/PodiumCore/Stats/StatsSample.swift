import Synchronization

/// One line of statistics: what the pipeline achieved over an interval, or over the whole run.
public struct StatsSample: Sendable, Codable, Equatable {
    public struct Drops: Sendable, Codable, Equatable {
        /// Pacing slots missed because capture fell behind.
        public var skipped: Int
        /// Slots lost because no frame buffer was free.
        public var noBuffer: Int
        /// Frames replaced before the encoder took them.
        public var encoder: Int
        /// Packets dropped by slow sinks (summed over sinks).
        public var sinks: Int
        /// Frames replaced before the window took them.
        public var window: Int

        public init(skipped: Int, noBuffer: Int, encoder: Int, sinks: Int, window: Int = 0) {
            self.skipped = skipped
            self.noBuffer = noBuffer
            self.encoder = encoder
            self.sinks = sinks
            self.window = window
        }

        public var total: Int { skipped + noBuffer + encoder + sinks + window }
    }

    public struct Stages: Sendable, Codable, Equatable {
        public var grab: StageTimes
        public var convert: StageTimes
        public var encode: StageTimes
        public var send: StageTimes
        public var present: StageTimes
        /// From a frame's grab to its packet leaving the encoder.
        public var latency: StageTimes
    }

    public struct Sink: Sendable, Codable, Equatable {
        public var url: String
        public var mbps: Double
        public var dropped: Int
        public var failed: Bool
        /// Seconds since an output that reconnects lost its peer; `nil` while it is connected.
        public var downSeconds: Double?
        /// Connect attempts that failed since it went down.
        public var failedAttempts: Int
        /// Times it went down over the run, and the seconds it spent down.
        public var outages: Int
        public var secondsLost: Double
        /// Clients connected, for an output that admits them (`?listen`).
        public var clients: Int?
        /// Bytes written or sent since the run started (in an interval too: the output's size so far).
        public var bytes: Int = 0
    }

    /// One encoder's figures.
    /// The run's sound over the interval.
    public struct Sound: Sendable, Codable, Equatable {
        /// The encoding, such as `aac 128k`.
        public var name: String
        /// The last block's peak, in dBFS; `nil` when silent.
        public var peakDB: Double?
        /// Whether a source has lost its sound server and tries again.
        public var reconnecting: Bool
        /// Seconds of sound the sources delivered that the encoder had no room for.
        public var droppedSeconds: Double
        /// Seconds of silence put where a source delivered nothing.
        public var silenceSeconds: Double
        public var kbps: Double
        public var encode: StageTimes
        /// The sound's offset from the pictures' clock that is the largest, in milliseconds
        /// (`Source.offsetMs`).
        public var offsetMs: Double
        /// Processor time of the sound's threads (capture, mixing and encoding), in cores.
        public var cpuCores: Double
        public var sources: [Source]

        /// One source of the mix.
        public struct Source: Sendable, Codable, Equatable {
            /// As `--audio` gave it: `mic?gain=-6dB`.
            public var name: String
            /// Its last block's peak before its gain, in dBFS; `nil` when silent.
            public var peakDB: Double?
            public var reconnecting: Bool
            /// How far its sound lies from where the times it was heard put it on the pictures'
            /// clock, in milliseconds (positive: later); what resampling has yet to correct.
            public var offsetMs: Double
        }
    }

    public struct Rendition: Sendable, Codable, Equatable {
        public var name: String
        public var outputs: [String]
        public var encodedFPS: Double
        /// Frames it fell behind on and skipped (the other encoders did not wait).
        public var dropped: Int
        public var mbps: Double
        public var scale: StageTimes
        public var encode: StageTimes
        public var latency: StageTimes
    }

    /// `interval` once a second, `summary` at the end.
    public var kind: String
    /// Seconds since the run started.
    public var elapsed: Double
    public var targetFPS: Int
    public var capturedFPS: Double
    /// Slots per second with nothing new on screen, which cost no grab (or one that was compared
    /// with the frame before and matched it).
    public var unchangedFPS: Double
    /// Of those, slots per second drawn on without a pixel changing.
    public var repaintedFPS: Double = 0
    /// Rows of the captured picture converted per frame taken by the encode side: fewer than its
    /// height when only changed rows were.
    public var rowsConverted: Double = 0
    public var encodedFPS: Double
    /// Frames drawn in the window per second; `nil` without a window.
    public var presentedFPS: Double?
    public var frames: Int
    public var drops: Drops
    public var mbps: Double
    public var cpuCores: Double
    public var stages: Stages
    /// Each encoder; `stages.encode` and `stages.latency` are the slowest one's.
    public var renditions: [Rendition]
    public var sinks: [Sink]
    /// The browser viewers, when the run serves them (`--to http://…`).
    public var viewers: Viewers? = nil
    /// The run's sound, when it has any.
    public var sound: Sound? = nil
    /// What the run is doing instead of its job, in words (`paused`, `waiting for HDMI-1`);
    /// `nil` while it is simply running.
    public var state: String? = nil
    /// How two sources share the picture now (`beside 60%`, `over top-right, swapped`); `nil`
    /// with one source.
    public var layout: String? = nil
    /// The recording the presenter started (`r`, `record start`), while there is one.
    public var recording: RecordingStatus? = nil
    /// What the replay keeps (`--replay`), when there is one.
    public var replay: ReplayStatus? = nil
    /// Whether the budget chooses the rate (`--fps auto`, `--max-cpu`), and what holds it below the
    /// highest now (`cpu`, `encoder`, `sink`, `capture`).
    public var auto: Bool? = nil
    public var limitedBy: String? = nil
    /// In the summary, when the rate changed: the seconds spent at each rate.
    public var secondsAtRates: [String: Double]? = nil
}

/// Turns the pipeline's running totals into per-interval samples and a run summary.
/// Not thread-safe: confine to the reporting task.
public struct StatsSampler {
    private struct Totals {
        var time: UInt64
        var cpu: UInt64
        var captured = 0, unchanged = 0, repainted = 0, convertedRows = 0, encoded = 0, skipped = 0, noBuffer = 0
        var encodeDropped = 0
        var presented = 0, windowDropped = 0
        var renditionEncoded: [Int] = []
        var renditionDropped: [Int] = []
        var renditionBytes: [Int] = []
        var sinkBytes: [Int] = []
        var sinkDropped: [Int] = []
        var soundDropped = 0, soundSilence = 0, soundBytes = 0, soundProcessorTime = 0
    }

    private let counters: RunCounters
    private let start: Totals
    private var previous: Totals

    public init(counters: RunCounters, time: UInt64, cpu: UInt64) {
        self.counters = counters
        start = Self.read(counters, time: time, cpu: cpu)
        previous = start
    }

    /// The sample since the previous call.
    public mutating func interval(time: UInt64, cpu: UInt64) -> StatsSample {
        let now = Self.read(counters, time: time, cpu: cpu)
        defer { previous = now }
        let times = counters.renditions.map {
            ($0.scale.takeInterval(), $0.encode.takeInterval(), $0.latency.takeInterval())
        }
        let viewerLatency = counters.viewers?.latency.takeInterval()
        let stages = StatsSample.Stages(
            grab: Self.merged(counters.sources.map { $0.grab.takeInterval() }),
            convert: counters.encode.convert.takeInterval(),
            encode: .empty,
            send: Self.merged(counters.sinks.map { $0.send.takeInterval() }),
            present: Self.merged(counters.windows.map { $0.present.takeInterval() }),
            latency: .empty
        )
        return sample(kind: "interval", from: previous, to: now, stages: stages, renditionTimes: times,
                      viewerLatency: viewerLatency, soundEncode: counters.sound?.encode.takeInterval() ?? .empty)
    }

    /// The sample over the whole run.
    public func summary(time: UInt64, cpu: UInt64) -> StatsSample {
        let now = Self.read(counters, time: time, cpu: cpu)
        let times = counters.renditions.map { ($0.scale.run, $0.encode.run, $0.latency.run) }
        let stages = StatsSample.Stages(
            grab: Self.merged(counters.sources.map { $0.grab.run }),
            convert: counters.encode.convert.run,
            encode: .empty,
            send: Self.merged(counters.sinks.map { $0.send.run }),
            present: Self.merged(counters.windows.map { $0.present.run }),
            latency: .empty
        )
        return sample(kind: "summary", from: start, to: now, stages: stages, renditionTimes: times,
                      viewerLatency: counters.viewers?.latency.run, soundEncode: counters.sound?.encode.run ?? .empty)
    }

    private func sample(kind: String, from old: Totals, to new: Totals, stages: StatsSample.Stages,
                        renditionTimes: [(scale: StageTimes, encode: StageTimes, latency: StageTimes)],
                        viewerLatency: StageTimes?, soundEncode: StageTimes) -> StatsSample {
        let seconds = max(Double(new.time - old.time) / 1e9, 1e-9)
        let renditions = counters.renditions.indices.map { index in
            StatsSample.Rendition(
                name: counters.renditions[index].name,
                outputs: counters.renditions[index].outputs,
                encodedFPS: Double(new.renditionEncoded[index] - old.renditionEncoded[index]) / seconds,
                dropped: new.renditionDropped[index] - old.renditionDropped[index],
                mbps: Double(new.renditionBytes[index] - old.renditionBytes[index]) * 8 / seconds / 1e6,
                scale: renditionTimes[index].scale,
                encode: renditionTimes[index].encode,
                latency: renditionTimes[index].latency
            )
        }
        var stages = stages
        // The slowest encoder sets the pace that matters: its times stand for the encode stage.
        if let slowest = renditions.max(by: { $0.encode.p95 < $1.encode.p95 }) {
            stages.encode = slowest.encode
            stages.latency = renditions.map(\.latency).max(by: { $0.p95 < $1.p95 }) ?? slowest.latency
        }
        let sinks = counters.sinks.indices.map { index in
            let link = counters.sinks[index].link
            return StatsSample.Sink(
                url: counters.sinks[index].url,
                mbps: Double(new.sinkBytes[index] - old.sinkBytes[index]) * 8 / seconds / 1e6,
                dropped: new.sinkDropped[index] - old.sinkDropped[index],
                failed: counters.sinks[index].failed.load(ordering: .relaxed),
                downSeconds: link.downFor(at: new.time).map(\.seconds),
                failedAttempts: link.failedAttempts.load(ordering: .relaxed),
                outages: link.outages.load(ordering: .relaxed),
                secondsLost: link.timeLost(at: new.time).seconds,
                clients: counters.sinks[index].clientCount,
                bytes: new.sinkBytes[index] - start.sinkBytes[index]
            )
        }
        return StatsSample(
            kind: kind,
            elapsed: Double(new.time - start.time) / 1e9,
            targetFPS: counters.targetFPS,
            capturedFPS: Double(new.captured - old.captured) / seconds,
            unchangedFPS: Double(new.unchanged - old.unchanged) / seconds,
            repaintedFPS: Double(new.repainted - old.repainted) / seconds,
            rowsConverted: Double(new.convertedRows - old.convertedRows) / Double(max(1, new.encoded - old.encoded)),
            encodedFPS: renditions.map(\.encodedFPS).min() ?? Double(new.encoded - old.encoded) / seconds,
            presentedFPS: counters.windows.isEmpty ? nil : Double(new.presented - old.presented) / seconds,
            frames: new.encoded - old.encoded,
            drops: .init(
                skipped: new.skipped - old.skipped,
                noBuffer: new.noBuffer - old.noBuffer,
                encoder: new.encodeDropped - old.encodeDropped + renditions.reduce(0) { $0 + $1.dropped },
                sinks: sinks.reduce(0) { $0 + $1.dropped },
                window: new.windowDropped - old.windowDropped
            ),
            mbps: renditions.reduce(0) { $0 + $1.mbps },
            cpuCores: Double(new.cpu - old.cpu) / 1e9 / seconds,
            stages: stages,
            renditions: renditions,
            sinks: sinks,
            viewers: counters.viewers.map { board in
                let totals = board.totals
                return StatsSample.Viewers(watching: board.watching, latency: viewerLatency ?? .empty,
                                           joined: totals.joined, most: totals.most)
            },
            sound: counters.sound.map { sound in
                let rate = Double(SoundFormat.sampleRate)
                let sources = sound.sources.map { source in
                    StatsSample.Sound.Source(
                        name: source.name, peakDB: source.peak > SoundLevel.floor ? source.peak : nil,
                        reconnecting: source.reconnecting.load(ordering: .relaxed),
                        offsetMs: Double(source.offset.load(ordering: .relaxed)) * 1e3 / rate)
                }
                return StatsSample.Sound(
                    name: sound.name, peakDB: sound.peak > SoundLevel.floor ? sound.peak : nil,
                    reconnecting: sound.reconnecting,
                    droppedSeconds: Double(new.soundDropped - old.soundDropped) / rate,
                    silenceSeconds: Double(new.soundSilence - old.soundSilence) / rate,
                    kbps: Double(new.soundBytes - old.soundBytes) * 8 / seconds / 1e3, encode: soundEncode,
                    offsetMs: sources.map(\.offsetMs).max { abs($0) < abs($1) } ?? 0,
                    cpuCores: Double(new.soundProcessorTime - old.soundProcessorTime) / 1e9 / seconds,
                    sources: sources)
            }
        )
    }

    private static func read(_ counters: RunCounters, time: UInt64, cpu: UInt64) -> Totals {
        func sum(_ value: (SourceCounters) -> Int) -> Int { counters.sources.reduce(0) { $0 + value($1) } }
        return Totals(
            time: time,
            cpu: cpu,
            captured: sum { $0.captured.load(ordering: .relaxed) },
            unchanged: sum { $0.unchanged.load(ordering: .relaxed) },
            repainted: sum { $0.repainted.load(ordering: .relaxed) },
            convertedRows: counters.encode.convertedRows.load(ordering: .relaxed),
            encoded: counters.encode.encoded.load(ordering: .relaxed),
            skipped: sum { $0.skipped.load(ordering: .relaxed) },
            noBuffer: sum { $0.noBuffer.load(ordering: .relaxed) },
            encodeDropped: counters.encode.dropped.load(ordering: .relaxed),
            // The slowest window's rate, as the slowest encoder's stands for the encode side.
            presented: counters.windows.map { $0.presented.load(ordering: .relaxed) }.min() ?? 0,
            windowDropped: counters.windows.reduce(0) { $0 + $1.dropped.load(ordering: .relaxed) },
            renditionEncoded: counters.renditions.map { $0.encoded.load(ordering: .relaxed) },
            renditionDropped: counters.renditions.map { $0.dropped.load(ordering: .relaxed) },
            renditionBytes: counters.renditions.map { $0.bytes.load(ordering: .relaxed) },
            sinkBytes: counters.sinks.map { $0.bytes.load(ordering: .relaxed) },
            sinkDropped: counters.sinks.map { $0.dropped.load(ordering: .relaxed) },
            soundDropped: counters.sound?.dropped.load(ordering: .relaxed) ?? 0,
            soundSilence: counters.sound?.silenceFilled.load(ordering: .relaxed) ?? 0,
            soundBytes: counters.sound?.bytes.load(ordering: .relaxed) ?? 0,
            soundProcessorTime: counters.sound?.processorTime.load(ordering: .relaxed) ?? 0
        )
    }

    /// The send stage across sinks: the slowest sink's percentiles, the packets of all of them.
    private static func merged(_ times: [StageTimes]) -> StageTimes {
        times.reduce(.empty) { result, next in
            StageTimes(
                count: result.count + next.count,
                p50: Swift.max(result.p50, next.p50),
                p95: Swift.max(result.p95, next.p95),
                p99: Swift.max(result.p99, next.p99),
                max: Swift.max(result.max, next.max)
            )
        }
    }
}

extension StatsSample.Viewers {
    /// `viewers 3 (latency p50 41 ms, worst 78 ms)`: the median of every painted frame, and the
    /// slowest viewer's 95th percentile. The summary says how many came over the run.
    func part(summary: Bool) -> String {
        let count = summary ? "viewers \(joined) (most \(most) at once" : "viewers \(watching.count)"
        guard latency.count > 0 else { return count + (summary ? ")" : "") }
        let worst = summary ? latency.p95 : watching.map(\.latency.p95).max() ?? latency.p95
        return count + (summary ? ", " : " (") + "latency p50 \(latency.p50.fixed(0)) ms, "
            + "\(summary ? "p95" : "worst") \(worst.fixed(0)) ms)"
    }
}

extension StatsSample {
    /// One line per encoder: its rate, drops, bit rate and times, and the outputs it fed.
    public var renditionLines: [String] {
        renditions.map { rendition in
            var times = ["encode \(rendition.encode.p50.fixed())/\(rendition.encode.p95.fixed())"]
            if rendition.scale.count > 0 {
                times.insert("scale \(rendition.scale.p50.fixed())/\(rendition.scale.p95.fixed())", at: 0)
            }
            return "\(rendition.name): \(rendition.encodedFPS.fixed()) fps, \(rendition.dropped) dropped, "
                + "\(rendition.mbps.fixed(2)) Mbit/s, ms p50/p95 \(times.joined(separator: " "))"
                + (rendition.outputs.isEmpty ? "" : "; to " + rendition.outputs.joined(separator: ", "))
        }
    }
}

extension Int {
    /// `1st`, `2nd`, `3rd`, `4th` … `11th`, `21st`.
    public var ordinal: String {
        let suffix = switch (self % 10, self % 100) {
        case (_, 11...13): "th"
        case (1, _): "st"
        case (2, _): "nd"
        case (3, _): "rd"
        default: "th"
        }
        return "\(self)\(suffix)"
    }
}

extension Double {
    /// The value as people type it: `23`, `18.5`.
    public var plain: String {
        rounded() == self && magnitude < 1e15 ? String(Int(self)) : String(self)
    }

    /// The value with `digits` (0 to 3) decimals, as figures are shown to people: `29.97`.
    public func fixed(_ digits: Int = 1) -> String {
        let scale = Double([1, 10, 100, 1000][digits])
        let rounded = (self * scale).rounded() / scale
        if digits == 0, rounded.magnitude < 1e15 { return String(Int(rounded)) }
        var text = String(rounded)
        if let dot = text.firstIndex(of: ".") {
            let decimals = text.distance(from: dot, to: text.endIndex) - 1
            text += String(repeating: "0", count: Swift.max(0, digits - decimals))
        }
        return text
    }
}
