import Foundation
import Logging
import PodiumCore
import PodiumMedia
import Synchronization

/// Several encodings of one capture: each frame is converted to 4:2:0 once, on this branch's
/// thread, and scaled once to each smaller size, each from the smallest larger picture; every
/// encoder then takes the picture of its size as it is. Each encoder has its own thread and
/// latest-wins slot, so a slow one drops its own frames, never another's and never capture's.
/// All of them follow one keyframe schedule by capture time, so their segments begin at the same
/// frames.
///
/// ```
/// capture ─▶ slot ─▶ convert once (1080p) ──────────────┬─ slot ─▶ encoder 1080p ─▶ hub ─▶ outputs
///                      └▶ I420Scale 720p ───────────────┼─ slot ─▶ encoder 720p  ─▶ hub ─▶ outputs
///                           └▶ I420Scale 360p ──────────┴─ slot ─▶ encoder 360p  ─▶ hub ─▶ outputs
/// ```
final class LadderBranch: FrameBranch {
    let slot = LatestSlot<CapturedFrame>()
    private let converter: PictureConverter
    private let renditions: [LadderRendition]
    private let counters: PipelineCounters
    private let keyframeInterval: Duration
    /// For each size the converter makes, the rendition whose counters take its scaling time.
    private let scaleTimers: [StageTimer?]

    init(converter: PictureConverter, renditions: [LadderRendition], keyframeInterval: Duration,
         counters: PipelineCounters) {
        self.converter = converter
        self.renditions = renditions
        self.keyframeInterval = keyframeInterval
        self.counters = counters
        scaleTimers = converter.sizes.indices.map { level in
            renditions.first { $0.level == level }?.counters.scale
        }
    }

    /// Pictures the converter needs: each encoder holds up to two (one waiting, one encoding), one
    /// is being converted, and one more covers an encoder that still references its last.
    static func pictureCount(renditions: Int) -> Int { 2 * renditions + 2 }

    func countDrop() { counters.encodeDropped.add(1, ordering: .relaxed) }

    var countsFrames: Bool { true }

    func prepare(_ pipeline: Pipeline) async {
        for rendition in renditions { await rendition.outputs.prepare(pipeline) }
    }

    func run(_ pipeline: Pipeline) {
        let encoders = DispatchGroup()
        for rendition in renditions {
            pipeline.spawn("podium-encoder", group: encoders) { rendition.run(pipeline) }
        }
        var converted = 0
        var firstCapture: UInt64?
        // The picture of each size for the frame at hand, and how many encoders read it.
        var pictures = [SharedPicture?](repeating: nil, count: converter.sizes.count)
        var readers = [Int](repeating: 0, count: converter.sizes.count)
        // On a grid of capture times from the first frame: HLS cuts a segment at the first keyframe
        // past each multiple of its length, so a keyframe a joining viewer asked of one encoder
        // in between never moves a cut, and every variant is cut at the same frame.
        var schedule = KeyframeSchedule(interval: keyframeInterval, onGrid: true)
        let clock = pipeline.clock
        while let frame = slot.take() {
            defer { frame.buffer.release() }
            if let limit = pipeline.limits.frames, converted >= limit { continue }
            let origin = firstCapture ?? frame.captureTime
            firstCapture = origin
            let keyframe = schedule.wantsKeyframe(at: frame.captureTime, requested: false)
            let start = clock.now()
            let picture: SharedPicture?
            do {
                picture = try converter.convert(frame)
            } catch {
                pipeline.fail(error)
                break
            }
            counters.convert.record(nanoseconds: clock.now() - start)
            // Every picture still read by a slow encoder: this frame is dropped for all of them.
            guard let picture else {
                counters.encodeDropped.add(1, ordering: .relaxed)
                continue
            }
            counters.convertedRows.add(converter.rowsConverted, ordering: .relaxed)
            schedule.encoded(at: frame.captureTime, keyframe: keyframe)
            pictures[0] = picture
            for level in pictures.indices.dropFirst() {
                let scaleStart = clock.now()
                let scaled = converter.scaled(level)
                pictures[level] = scaled?.picture
                if scaled?.rescaled == true { scaleTimers[level]?.record(nanoseconds: clock.now() - scaleStart) }
            }
            // An encoder whose size could not be made takes the captured picture and scales it itself.
            for level in readers.indices { readers[level] = 0 }
            for rendition in renditions { readers[pictures[rendition.level] == nil ? 0 : rendition.level] += 1 }
            for level in pictures.indices { pictures[level]?.share(with: readers[level]) }
            for rendition in renditions {
                let shared = ConvertedFrame(picture: pictures[rendition.level] ?? picture,
                                            captureTime: frame.captureTime, origin: origin, sequence: frame.sequence,
                                            keyframe: keyframe)
                rendition.offer(shared)
            }
            converted += 1
            counters.encoded.add(1, ordering: .relaxed)
            if converted == pipeline.limits.frames { pipeline.stop() }
        }
        for rendition in renditions { rendition.slot.close() }
        encoders.wait()
    }

    func finish(_ pipeline: Pipeline) async {
        for rendition in renditions { await rendition.outputs.finish(pipeline) }
    }
}

/// One encoder of a ladder, on its own thread: it takes the newest shared picture, scales it to
/// its size if it must, encodes it and publishes the packets to its outputs.
final class LadderRendition: Sendable {
    let slot = LatestSlot<ConvertedFrame>()
    let encoder: VideoEncoder
    let outputs: RenditionOutputs
    let counters: RenditionCounters
    /// The index of its size among the converter's.
    let level: Int

    init(encoder: VideoEncoder, outputs: RenditionOutputs, counters: RenditionCounters, level: Int) {
        self.encoder = encoder
        self.outputs = outputs
        self.counters = counters
        self.level = level
    }

    /// Leaves `frame` for this encoder; a frame it had not taken yet is dropped, unless that one
    /// is a scheduled keyframe: then `frame` is. Every encoder makes its keyframes of the very
    /// frames the schedule chose, so the segments of every rendition start at the same times.
    /// Call from the converting thread.
    func offer(_ frame: ConvertedFrame) {
        // A newer scheduled keyframe does replace a waiting one: the encoder is a whole interval behind.
        guard let dropped = slot.offer(frame, keepingPending: { $0.keyframe && !frame.keyframe }) else { return }
        dropped.picture.release()
        counters.dropped.add(1, ordering: .relaxed)
    }

    func run(_ pipeline: Pipeline) {
        let clock = pipeline.clock
        var firstCapture: UInt64?
        let emit: (EncodedPacket) -> Void = { packet in
            self.outputs.publish(packet, firstCapture: firstCapture, clock: clock, counters: self.counters)
        }
        while let frame = slot.take() {
            defer { frame.picture.release() }
            firstCapture = frame.origin
            // The schedule's keyframe, or one an output that just joined this rendition asked for.
            let keyframe = frame.keyframe || outputs.hub.takeKeyframeRequest()
            do {
                let start = clock.now()
                if try encoder.take(frame.picture) { counters.scale.record(nanoseconds: clock.now() - start) }
                let encodeStart = clock.now()
                let time = Int64((frame.captureTime - frame.origin) / 1_000)
                try encoder.encodeConverted(time: time, keyframe: keyframe, emit: emit)
                counters.encode.record(nanoseconds: clock.now() - encodeStart)
            } catch {
                pipeline.fail(.software("encoding \(counters.name) with \(encoder.name) failed: \(error)"))
                // No more pictures are left for this encoder; the one waiting goes back.
                slot.close()
                break
            }
            counters.encoded.add(1, ordering: .relaxed)
        }
        while case .element(let left) = slot.take(timeout: 0) { left.picture.release() }
        do {
            try encoder.flush(emit: emit)
        } catch {
            pipeline.logger.warning("the \(counters.name) encoder could not be flushed: \(error)")
        }
        outputs.close()
    }
}
