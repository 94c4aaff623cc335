import Logging
import Synchronization

/// The one encode path: each frame is converted once, on this stage's thread, and scaled once to
/// each smaller size an encoder wants, each from the smallest larger picture; every encoder then
/// takes the picture of its size as it is, on a thread of its own with its own latest-wins slot,
/// so a slow one drops its own frames, never another's and never capture's. A single encoding is
/// a ladder of one, whose encoder works on the stage's thread: with no other encoder to keep up
/// with, a hand-off would only cost a wake-up a frame (the stage's own slot drops for it).
///
/// All encoders follow one keyframe schedule on the frame-rate grid, so their segments begin at
/// the same frames; and a slow encoder drops the frame after a scheduled keyframe rather than the
/// keyframe.
///
/// ```
/// fan-out ─▶ slot ─▶ convert once (1080p) ─────────────┬─ slot ─▶ encoder 1080p ─▶ hub
///                      └▶ scale 720p ──────────────────┼─ slot ─▶ encoder 720p  ─▶ hub
///                           └▶ scale 360p ─────────────┴─ slot ─▶ encoder 360p  ─▶ hub
/// ```
public final class EncodeStage<Maker: PictureMaking, Encoder: PictureEncoding>: FrameStage
where Encoder.Picture == Maker.Picture {
    public typealias Picture = Maker.Picture

    /// One encoder of the stage.
    public struct Rendition: Sendable {
        /// The stream id it publishes, reserved on the run's hub.
        public var stream: Int
        /// The index of its size among the maker's levels.
        public var level: Int
        public var counters: RenditionCounters
        /// Opens the encoder on its thread, with the stream id.
        public var open: @Sendable (Int) throws(PodiumError) -> Encoder

        public init(stream: Int, level: Int, counters: RenditionCounters,
                    open: @escaping @Sendable (Int) throws(PodiumError) -> Encoder) {
            self.stream = stream
            self.level = level
            self.counters = counters
            self.open = open
        }
    }

    public let slot = LatestSlot<CapturedFrame>()
    private let makePictures: @Sendable () throws(PodiumError) -> Maker
    private let renditions: [RenditionWorker<Encoder>]
    private let keyframeInterval: Duration
    private let counters: EncodeCounters

    /// - Parameters:
    ///   - makePictures: makes the converter on the stage's thread.
    ///   - keyframeInterval: the one keyframe schedule every encoder follows.
    public init(makePictures: @escaping @Sendable () throws(PodiumError) -> Maker, renditions: [Rendition],
                keyframeInterval: Duration, counters: EncodeCounters) {
        self.makePictures = makePictures
        self.renditions = renditions.map(RenditionWorker.init(rendition:))
        self.keyframeInterval = keyframeInterval
        self.counters = counters
    }

    public var countsFrames: Bool { true }

    public func countDrop() { counters.dropped.add(1, ordering: .relaxed) }

    /// A line for each encoder, for the start message; filled once the stage is open.
    public var summaries: [String] { renditions.map { $0.described.summary } }

    /// A few words for each encoder (`h264 libx264 ultrafast`); filled once the stage is open.
    public var labels: [String] { renditions.map { $0.described.label } }

    /// What the stage's thread works with: the picture maker, and either the encoders' threads or
    /// the one encoder, open here.
    public final class Worker {
        let maker: Maker
        let threads: ThreadGroup
        let inline: RenditionWorker<Encoder>.Open?

        init(maker: Maker, threads: ThreadGroup, inline: RenditionWorker<Encoder>.Open?) {
            self.maker = maker
            self.threads = threads
            self.inline = inline
        }
    }

    /// Opens the picture maker on this thread, and every encoder: on a thread of its own each, or
    /// the only one here.
    public func open(in context: StageContext) throws(PodiumError) -> Worker {
        let threads = ThreadGroup()
        var failure: PodiumError?
        var inline: RenditionWorker<Encoder>.Open?
        if renditions.count == 1 {
            do {
                inline = try renditions[0].open(in: context)
            } catch {
                failure = error
            }
        } else {
            let opened = ReadyLatch(count: renditions.count)
            for rendition in renditions {
                threads.spawn("podium-encoder") { rendition.run(in: context, opened: opened) }
            }
            failure = opened.waitBlocking()
        }
        var maker: Maker?
        if failure == nil {
            do {
                maker = try makePictures()
            } catch {
                failure = error
            }
        }
        guard let maker, failure == nil else {
            for rendition in renditions { rendition.slot.close() }
            threads.waitBlocking()
            throw failure ?? .software("the encode stage did not open")
        }
        return Worker(maker: maker, threads: threads, inline: inline)
    }

    public func run(_ worker: Worker, in context: StageContext) {
        let maker = worker.maker
        let clock = context.clock
        // The picture of each size for the frame at hand, and how many encoders read it.
        var pictures = [Picture?](repeating: nil, count: maker.levels)
        var readers = [Int](repeating: 0, count: maker.levels)
        // For each size, the encoder whose counters take its scaling time.
        let scaleTimers = (0..<maker.levels).map { level in renditions.first { $0.level == level }?.counters.scale }
        // On the grid from the first frame: HLS cuts a segment at the first keyframe past each
        // multiple of its length, so a keyframe a joining viewer asked of one encoder in between
        // never moves a cut, and every variant is cut at the same frame.
        var schedule = KeyframeSchedule(interval: keyframeInterval, onGrid: true)
        frames: while let frame = slot.take() {
            defer { frame.buffer.release() }
            let keyframe = schedule.wantsKeyframe(at: frame.slotTime, requested: false)
            let start = clock.now()
            let converted: Picture?
            do {
                converted = try maker.convert(frame)
            } catch {
                context.fail(error)
                break frames
            }
            counters.convert.record(nanoseconds: clock.now() - start)
            // Every picture still read by a slow encoder: this frame is dropped for all of them.
            guard let picture = converted else {
                counters.dropped.add(1, ordering: .relaxed)
                continue
            }
            // `--frames` counts the frames converted for the encoders.
            guard context.takeFrame() else { continue }
            counters.convertedRows.add(maker.rowsConverted, ordering: .relaxed)
            schedule.encoded(at: frame.slotTime, keyframe: keyframe)
            pictures[0] = picture
            var level = 1
            while level < pictures.count {
                let scaleStart = clock.now()
                let scaled = maker.scaled(level)
                pictures[level] = scaled?.picture
                if scaled?.rescaled == true { scaleTimers[level]?.record(nanoseconds: clock.now() - scaleStart) }
                level += 1
            }
            // An encoder whose size could not be made takes level 0's picture and scales it itself.
            for index in readers.indices { readers[index] = 0 }
            for rendition in renditions { readers[pictures[rendition.level] == nil ? 0 : rendition.level] += 1 }
            for index in pictures.indices { pictures[index]?.share(with: readers[index]) }
            for rendition in renditions {
                let converted = ConvertedFrame(picture: pictures[rendition.level] ?? picture,
                                               captureTime: frame.captureTime, slotTime: frame.slotTime,
                                               interval: frame.interval, keyframe: keyframe)
                if let inline = worker.inline {
                    guard inline.encode(converted) else { break frames }
                } else {
                    rendition.offer(converted)
                }
            }
            for index in pictures.indices { pictures[index] = nil }
            counters.encoded.add(1, ordering: .relaxed)
        }
        // After a failure, no more frames are taken; the one waiting goes back.
        slot.closeAndEmpty()?.buffer.release()
        worker.inline?.flush()
        for rendition in renditions { rendition.slot.close() }
        worker.threads.waitBlocking()
    }
}

/// A converted picture on its way to one encoder, with what it needs to know about it.
struct ConvertedFrame<Picture: SharedPicture>: Sendable {
    var picture: Picture
    var captureTime: UInt64
    var slotTime: UInt64
    /// How long it is shown: the frame-rate grid's interval when it was taken.
    var interval: UInt64
    /// Whether every encoder should make this a keyframe: the run's one keyframe schedule, so the
    /// renditions' segments start at the same frames.
    var keyframe: Bool
}

/// One encoder of the encode stage, on its own thread: it takes the newest shared picture, scales
/// it to its size if it must, encodes it and publishes the packets on the run's hub.
final class RenditionWorker<Encoder: PictureEncoding>: Sendable {
    let slot = LatestSlot<ConvertedFrame<Encoder.Picture>>()
    let stream: Int
    let level: Int
    let counters: RenditionCounters
    private let open: @Sendable (Int) throws(PodiumError) -> Encoder
    private let description = Mutex((summary: "", label: ""))

    init<Maker>(rendition: EncodeStage<Maker, Encoder>.Rendition) {
        stream = rendition.stream
        level = rendition.level
        counters = rendition.counters
        open = rendition.open
    }

    /// The encoder's line for the start message and its label, once it is open.
    var described: (summary: String, label: String) { description.withLock { $0 } }

    /// Leaves `frame` for this encoder; a frame it had not taken yet is dropped, unless that one
    /// is a scheduled keyframe: then `frame` is. Every encoder makes its keyframes of the very
    /// frames the schedule chose, so the segments of every rendition start at the same times.
    /// Call from the converting thread.
    func offer(_ frame: ConvertedFrame<Encoder.Picture>) {
        // A newer scheduled keyframe does replace a waiting one: the encoder is a whole interval behind.
        guard let dropped = slot.offer(frame, keepingPending: { $0.keyframe && !frame.keyframe }) else { return }
        dropped.picture.release()
        counters.dropped.add(1, ordering: .relaxed)
    }

    /// The thread's body: opens the encoder (told to `opened`), then encodes until the slot
    /// closes, and flushes.
    func run(in context: StageContext, opened: ReadyLatch) {
        let encoding: Open
        do {
            encoding = try open(in: context)
        } catch {
            opened.report(error)
            return
        }
        opened.report(nil)
        while let frame = slot.take() {
            guard encoding.encode(frame) else {
                // No more pictures are taken by this encoder; the one waiting goes back.
                slot.close()
                break
            }
        }
        while case .element(let left) = slot.take(timeout: 0) { left.picture.release() }
        encoding.flush()
    }

    /// Opens the encoder on the calling thread and describes its stream on the hub.
    func open(in context: StageContext) throws(PodiumError) -> Open {
        let encoder = try open(stream)
        context.hub.describe(encoder.stream)
        description.withLock { $0 = (encoder.summary, encoder.label) }
        if let notice = encoder.takeNotice() { context.logger.warning("\(counters.name): \(notice.message)") }
        return Open(encoder: encoder, worker: self, context: context)
    }

    /// Says what the encoder told once: software took over from the GPU's, say (a change of the
    /// run, in the statistics too).
    fileprivate func tell(_ notice: EncoderNotice, by encoder: Encoder, in context: StageContext) {
        description.withLock { $0 = (encoder.summary, encoder.label) }
        guard let fallback = notice.fallback else {
            context.logger.warning("\(counters.name): \(notice.message)")
            return
        }
        context.control.report(RunChange(setting: "encoder", from: fallback.from, to: fallback.to, by: .fault,
                                         reason: "\(counters.name): \(notice.message)"))
    }

    /// An open encoder and what its packets need, on the thread that opened it.
    final class Open {
        private let encoder: Encoder
        private let worker: RenditionWorker
        private let context: StageContext
        /// How long the packets of the frame at hand last, in the stream's time scale.
        private var duration: Int64 = 0
        private var captureTimes = CaptureTimes()
        /// The run's tuning as this encoder last took it.
        private var tuningVersion: UInt64 = 0
        /// What its output's receiver can take, as it last asked (a WebRTC output's feedback).
        private var networkBitrate: Bitrate?

        init(encoder: Encoder, worker: RenditionWorker, context: StageContext) {
            self.encoder = encoder
            self.worker = worker
            self.context = context
        }

        /// Takes what the run asks of the encoders now, when that changed (a frame rate, a bit
        /// rate); an encoder that cannot change says so, and goes on as it was.
        private func retune() {
            let version = context.control.tuning.version
            let asked = context.hub.takeBitrateRequest(stream: worker.stream)
            guard version != tuningVersion || asked != nil else { return }
            tuningVersion = version
            var tuning = context.control.tuning.encoding
            tuning.networkBitrate = networkBitrate
            let before = encoder.stream.bitrate.map(tuning.bitrate(planned:))
            if let asked {
                networkBitrate = asked.bitrate
                tuning.networkBitrate = asked.bitrate
            }
            do {
                try encoder.retune(tuning)
            } catch {
                context.logger.warning("\(error.message)")
                return
            }
            // Said and kept for the statistics like a change by key, naming this encoder.
            if let asked, let before, let after = encoder.stream.bitrate.map(tuning.bitrate(planned:)),
               after != before {
                context.control.report(RunChange(setting: "bitrate", from: "\(EncoderRate.bitrate(before))",
                                                 to: "\(EncoderRate.bitrate(after))", by: .network,
                                                 reason: "\(worker.counters.name): \(asked.reason)"))
            }
        }

        /// Encodes `frame` and publishes its packets, then releases its picture.
        /// - Returns: `false` when the encoder failed (the run ends).
        func encode(_ frame: ConvertedFrame<Encoder.Picture>) -> Bool {
            defer { frame.picture.release() }
            let counters = worker.counters
            let clock = context.clock
            // The schedule's keyframe, or one an output that just joined this stream asked for
            // (taken either way: a request is met by any keyframe).
            let requested = context.hub.takeKeyframeRequest(stream: worker.stream)
            let keyframe = frame.keyframe || requested
            duration = encoder.stream.ticks(nanoseconds: frame.interval)
            retune()
            do {
                let start = clock.now()
                if try encoder.take(frame.picture) { counters.scale.record(nanoseconds: clock.now() - start) }
                let encodeStart = clock.now()
                captureTimes.note(encoder.stream.ticks(nanoseconds: frame.slotTime), capturedAt: frame.captureTime)
                try encoder.encode(slotTime: frame.slotTime, keyframe: keyframe, emit: publish)
                counters.encode.record(nanoseconds: clock.now() - encodeStart)
                if let notice = encoder.takeNotice() { worker.tell(notice, by: encoder, in: context) }
            } catch {
                context.fail(.software("encoding \(counters.name) failed: \(error.message)"))
                return false
            }
            counters.encoded.add(1, ordering: .relaxed)
            return true
        }

        /// Ends the stream: the packets the encoder still held are published.
        func flush() {
            do {
                try encoder.flush(emit: publish)
            } catch {
                context.logger.warning("the \(worker.counters.name) encoder could not be flushed: \(error.message)")
            }
        }

        /// Stamps a packet with its length and its frame's grab time, and publishes it.
        private func publish(_ packet: EncodedPacket) {
            var packet = packet
            packet.duration = duration
            packet.captureTime = captureTimes.captureTime(of: packet.presentationTime)
            let counters = worker.counters
            if packet.captureTime > 0 {
                counters.latency.record(nanoseconds: context.clock.now() &- packet.captureTime)
            }
            counters.bytes.add(packet.size, ordering: .relaxed)
            context.hub.publish(packet)
        }
    }
}

/// The capture times of the frames an encoder holds, by presentation time, so each packet that
/// comes out (at once, or a few frames later from an encoder with a delay) carries its frame's:
/// latency figures count from the grab, while packet times are on the grid. A small ring; no
/// allocation.
struct CaptureTimes {
    private static let capacity = 32
    private var times = InlineArray<32, Int64>(repeating: .min)
    private var captures = InlineArray<32, UInt64>(repeating: 0)
    private var next = 0

    /// The frame shown at `presentationTime` was grabbed at `captureTime`.
    mutating func note(_ presentationTime: Int64, capturedAt captureTime: UInt64) {
        times[next] = presentationTime
        captures[next] = captureTime
        next = (next + 1) % Self.capacity
    }

    /// When the frame shown at `presentationTime` was grabbed; 0 when not known.
    func captureTime(of presentationTime: Int64) -> UInt64 {
        var index = 0
        while index < Self.capacity {
            if times[index] == presentationTime { return captures[index] }
            index += 1
        }
        return 0
    }
}
