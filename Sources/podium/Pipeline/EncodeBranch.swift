import Foundation
import Logging
import PodiumCore
import PodiumMedia
import Synchronization

/// One encoding: converts and encodes each frame on one thread, and publishes the packets on the
/// hub that every open output is subscribed to.
final class EncodeBranch: FrameBranch {
    let slot = LatestSlot<CapturedFrame>()
    private let encoder: VideoEncoder
    private let outputs: RenditionOutputs
    private let counters: PipelineCounters
    private let rendition: RenditionCounters

    init(encoder: VideoEncoder, outputs: RenditionOutputs, counters: PipelineCounters) {
        self.encoder = encoder
        self.outputs = outputs
        self.counters = counters
        rendition = counters.renditions[0]
    }

    func countDrop() { counters.encodeDropped.add(1, ordering: .relaxed) }

    var countsFrames: Bool { true }

    func prepare(_ pipeline: Pipeline) async { await outputs.prepare(pipeline) }

    func run(_ pipeline: Pipeline) {
        var encoded = 0
        var firstCapture: UInt64?
        var schedule = KeyframeSchedule(interval: encoder.settings.keyframeInterval)
        var sawKeyframe = false
        let clock = pipeline.clock
        let emit: (EncodedPacket) -> Void = { packet in
            if packet.isKeyframe { sawKeyframe = true }
            self.outputs.publish(packet, firstCapture: firstCapture, clock: clock, counters: self.rendition)
        }
        while let frame = slot.take() {
            defer { frame.buffer.release() }
            if let limit = pipeline.limits.frames, encoded >= limit { continue }
            let origin = firstCapture ?? frame.captureTime
            firstCapture = origin
            // An output that just subscribed asks for a keyframe to start from.
            let keyframe = schedule.wantsKeyframe(at: frame.captureTime, requested: outputs.hub.takeKeyframeRequest())
            sawKeyframe = false
            do {
                let convertStart = clock.now()
                try encoder.convert(frame)
                let encodeStart = clock.now()
                counters.convert.record(nanoseconds: encodeStart - convertStart)
                counters.convertedRows.add(encoder.rowsConverted, ordering: .relaxed)
                try encoder.encodeConverted(time: Int64((frame.captureTime - origin) / 1_000), keyframe: keyframe, emit: emit)
                rendition.encode.record(nanoseconds: clock.now() - encodeStart)
                schedule.encoded(at: frame.captureTime, keyframe: sawKeyframe)
            } catch {
                pipeline.fail(.software("encoding with \(encoder.name) failed: \(error)"))
                break
            }
            encoded += 1
            counters.encoded.add(1, ordering: .relaxed)
            rendition.encoded.add(1, ordering: .relaxed)
            if encoded == pipeline.limits.frames { pipeline.stop() }
        }
        do {
            try encoder.flush(emit: emit)
        } catch {
            pipeline.logger.warning("the encoder could not be flushed: \(error)")
        }
        outputs.close()
    }

    func finish(_ pipeline: Pipeline) async { await outputs.finish(pipeline) }
}
