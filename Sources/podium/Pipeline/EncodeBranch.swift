import Foundation
import Logging
import PodiumCore
import PodiumMedia
import Synchronization

/// Converts and encodes frames, and publishes the packets on a hub that every open output is
/// subscribed to.
final class EncodeBranch: FrameBranch {
    let slot = LatestSlot<CapturedFrame>()
    private let encoder: VideoEncoder
    private let hub: PacketHub
    /// The outputs the user named; each subscribes to the hub once it is open.
    private let sinks: [MuxerOutput]
    private let counters: PipelineCounters
    private let sinkThreads = DispatchGroup()
    private let failedSinks = Atomic<Int>(0)

    init(encoder: VideoEncoder, outputs: [MuxerOutput], counters: PipelineCounters) {
        self.encoder = encoder
        hub = PacketHub(streams: [encoder.stream])
        sinks = outputs
        self.counters = counters
    }

    func countDrop() { counters.encodeDropped.add(1, ordering: .relaxed) }

    /// Starts the sink threads. Files and datagrams open at once, and capture waits for them so a
    /// file gets the first frame; a TCP listener waits for its client as long as it takes. A file
    /// that cannot be opened ends the run before capture starts.
    func prepare(_ pipeline: Pipeline) async {
        let opening = DispatchGroup()
        let startFailure = Mutex<PodiumError?>(nil)
        for sink in sinks {
            let waitForIt = !sink.opensLate
            if waitForIt { opening.enter() }
            pipeline.spawn("podium-sink", group: sinkThreads) {
                self.runSink(sink, pipeline) { error in
                    if let error, sink.url.filePath != nil { startFailure.withLock { $0 = $0 ?? error } }
                    if waitForIt { opening.leave() }
                }
            }
        }
        // A sink still waiting for its peer would wait forever.
        pipeline.onStop { [sinks] in sinks.forEach { $0.abortIfOpening() } }
        await opening.wait()
        if let failure = startFailure.withLock({ $0 }) { pipeline.fail(failure) }
    }

    func run(_ pipeline: Pipeline) {
        var encoded = 0
        var firstCapture: UInt64?
        // Keyframes go by time, not frame count: with damage tracking an idle screen sends a frame a second.
        let keyframeInterval = UInt64(encoder.settings.keyframeInterval.nanoseconds)
        var lastKeyframe: UInt64?
        var sawKeyframe = false
        let clock = pipeline.clock
        let emit: (EncodedPacket) -> Void = { packet in
            if packet.isKeyframe { sawKeyframe = true }
            // Packets carry their frame's grab time, in microseconds since the first frame.
            if let firstCapture { self.counters.latency.record(nanoseconds: clock.now() - (firstCapture + UInt64(packet.presentationTime) * 1_000)) }
            self.counters.encodedBytes.add(packet.size, ordering: .relaxed)
            self.hub.publish(packet)
        }
        while let frame = slot.take() {
            defer { frame.buffer.release() }
            if let limit = pipeline.limits.frames, encoded >= limit { continue }
            let origin = firstCapture ?? frame.captureTime
            firstCapture = origin
            // An output that just subscribed asks for a keyframe to start from.
            let due = lastKeyframe.map { frame.captureTime >= $0 + keyframeInterval } ?? false
            let keyframe = hub.takeKeyframeRequest() || due
            sawKeyframe = false
            do {
                let convertStart = clock.now()
                try encoder.convert(frame)
                let encodeStart = clock.now()
                counters.convert.record(nanoseconds: encodeStart - convertStart)
                try encoder.encodeConverted(time: Int64((frame.captureTime - origin) / 1_000), keyframe: keyframe, emit: emit)
                counters.encode.record(nanoseconds: clock.now() - encodeStart)
                if sawKeyframe || lastKeyframe == nil { lastKeyframe = frame.captureTime }
            } catch {
                pipeline.fail(.software("encoding with \(encoder.name) failed: \(error)"))
                break
            }
            encoded += 1
            counters.encoded.add(1, ordering: .relaxed)
            if encoded == pipeline.limits.frames { pipeline.stop() }
        }
        do {
            try encoder.flush(emit: emit)
        } catch {
            pipeline.logger.warning("the encoder could not be flushed: \(error)")
        }
        sinks.forEach { $0.close() }
    }

    /// Waits for the sinks to write what is queued and finalize; a destination that still does
    /// not take its packets after a grace period is cut off.
    func finish(_ pipeline: Pipeline) async {
        if await !sinkThreads.wait(timeout: .seconds(5)) {
            pipeline.logger.warning("an output is still busy 5 s after the end; giving up on it")
            sinks.forEach { $0.abort() }
            await sinkThreads.wait()
        }
    }

    /// The sink's thread: opens it, tells `opened` how that went, then writes until the end.
    private func runSink(_ sink: MuxerOutput, _ pipeline: Pipeline, opened: (PodiumError?) -> Void) {
        let isOpen: Bool
        do {
            isOpen = try sink.open()
        } catch {
            opened(error)
            // A file that cannot be opened ends the run before it starts (`prepare`), with its own message.
            if sink.url.filePath == nil { report(error, of: sink, pipeline) }
            return
        }
        opened(nil)
        guard isOpen else { return }
        hub.subscribe(sink)
        defer { hub.unsubscribe(sink) }
        do {
            try sink.drain(clock: pipeline.clock)
        } catch {
            report(error, of: sink, pipeline)
        }
    }

    /// Reports a sink's failure; the run ends when every sink has failed.
    private func report(_ error: PodiumError, of sink: MuxerOutput, _ pipeline: Pipeline) {
        // Failing to finish while stopping on purpose (a peer cut off after the grace period) is no news.
        if pipeline.isStopping && !sink.counters.failed.load(ordering: .relaxed) { return }
        pipeline.logger.error("\(error.message)")
        if failedSinks.add(1, ordering: .relaxed).newValue == sinks.count {
            pipeline.fail(.io("every output failed; stopping"))
        }
    }
}
