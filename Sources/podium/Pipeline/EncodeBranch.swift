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
    /// The outputs the user named that write to one place; each subscribes to the hub once open.
    private let sinks: [MuxerOutput]
    /// The outputs the user named that admit clients (`?listen`); each client is a guest output.
    private let listeners: [ClientListener]
    private let counters: PipelineCounters
    private let sinkThreads = DispatchGroup()
    /// Required outputs that failed; the run ends when all have.
    private let failedOutputs = Atomic<Int>(0)
    /// Raised when the run stops: listeners admit no more clients.
    private let stopAccepting = StopFlag()

    init(encoder: VideoEncoder, outputs: [MuxerOutput], listeners: [ClientListener], counters: PipelineCounters) {
        self.encoder = encoder
        hub = PacketHub(streams: [encoder.stream])
        sinks = outputs
        self.listeners = listeners
        self.counters = counters
    }

    private var requiredCount: Int { sinks.count + listeners.count }

    func countDrop() { counters.encodeDropped.add(1, ordering: .relaxed) }

    var countsFrames: Bool { true }

    /// Starts the output threads and the listeners. Capture waits for the outputs that open at once,
    /// so a file gets the first frame (a TCP connect with `?retry=off` tries for up to 5 s); a file
    /// that cannot be opened ends the run before capture starts. An output that retries connects
    /// while capture runs. Listeners admit clients from now until the end.
    func prepare(_ pipeline: Pipeline) async {
        let opening = DispatchGroup()
        let startFailure = Mutex<PodiumError?>(nil)
        for sink in sinks {
            // Capture waits for an output that opens at once (a file gets the first frame), not for
            // one whose peer may come later.
            let waited = !sink.route.opensLate
            if waited { opening.enter() }
            pipeline.spawn("podium-sink", group: sinkThreads) {
                self.runSink(sink, pipeline) { error in
                    guard waited else { return }
                    if let error, sink.url.filePath != nil { startFailure.withLock { $0 = $0 ?? error } }
                    opening.leave()
                }
            }
        }
        // A connect still trying gives up when the run is stopped.
        pipeline.onStop { [sinks, stopAccepting] in
            sinks.forEach { $0.abortIfOpening() }
            stopAccepting.raise()
        }
        await opening.wait()
        if let failure = startFailure.withLock({ $0 }) { pipeline.fail(failure) }
        for listener in listeners {
            do {
                try listener.bind()
            } catch {
                reportFailure(error, pipeline)
                continue
            }
            pipeline.spawn("podium-listener", group: sinkThreads) {
                listener.acceptClients(until: self.stopAccepting) { guest, peer in
                    self.serve(guest, from: peer, of: listener, pipeline)
                }
            }
        }
    }

    func run(_ pipeline: Pipeline) {
        var encoded = 0
        var firstCapture: UInt64?
        var schedule = KeyframeSchedule(interval: encoder.settings.keyframeInterval)
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
            let keyframe = schedule.wantsKeyframe(at: frame.captureTime, requested: hub.takeKeyframeRequest())
            sawKeyframe = false
            do {
                let convertStart = clock.now()
                try encoder.convert(frame)
                let encodeStart = clock.now()
                counters.convert.record(nanoseconds: encodeStart - convertStart)
                try encoder.encodeConverted(time: Int64((frame.captureTime - origin) / 1_000), keyframe: keyframe, emit: emit)
                counters.encode.record(nanoseconds: clock.now() - encodeStart)
                schedule.encoded(at: frame.captureTime, keyframe: sawKeyframe)
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
        listeners.forEach { $0.closeAll() }
    }

    /// Waits for the sinks to write what is queued and finalize; a destination that still does
    /// not take its packets after a grace period is cut off.
    func finish(_ pipeline: Pipeline) async {
        if await !sinkThreads.wait(timeout: .seconds(5)) {
            pipeline.logger.warning("an output is still busy 5 s after the end; giving up on it")
            sinks.forEach { $0.abort() }
            listeners.forEach { $0.abortAll() }
            await sinkThreads.wait()
        }
    }

    /// The output's thread: it tells `opened` how its first attempt went, then writes (and, if it
    /// retries, reconnects) until the end.
    private func runSink(_ sink: MuxerOutput, _ pipeline: Pipeline, opened: (PodiumError?) -> Void) {
        do {
            try sink.run(hub: hub, clock: pipeline.clock, opened: opened)
        } catch {
            // A file that cannot be opened ends the run before it starts (`prepare`), with its own message.
            if sink.url.filePath == nil || sink.counters.packets.load(ordering: .relaxed) > 0 {
                report(error, of: sink, pipeline)
            }
        }
    }

    /// A client of a listener, on a thread of its own: it joins on a keyframe, gets every packet
    /// until it leaves or the run ends, and its leaving ends nothing else.
    private func serve(_ guest: MuxerOutput, from peer: String, of listener: ClientListener, _ pipeline: Pipeline) {
        pipeline.spawn("podium-guest", group: sinkThreads) {
            let joined = pipeline.clock.now()
            pipeline.logger.notice("viewer \(peer) joined \(listener.url) (\(listener.clientCount) watching)")
            defer {
                listener.left(guest)
                let seconds = Double(pipeline.clock.now() - joined) / 1e9
                pipeline.logger.notice("viewer \(peer) left after \(seconds.fixed()) s")
            }
            do throws(PodiumError) {
                try guest.run(hub: self.hub, clock: pipeline.clock) { _ in }
            } catch {
                pipeline.logger.info("viewer \(peer): \(error.message)")
            }
        }
    }

    /// Reports a required output's failure; the run ends when every required output has failed.
    private func report(_ error: PodiumError, of sink: MuxerOutput, _ pipeline: Pipeline) {
        // Failing to finish while stopping on purpose (a peer cut off after the grace period) is no news.
        if pipeline.isStopping && !sink.counters.failed.load(ordering: .relaxed) { return }
        reportFailure(error, pipeline)
    }

    private func reportFailure(_ error: PodiumError, _ pipeline: Pipeline) {
        pipeline.logger.error("\(error.message)")
        if failedOutputs.add(1, ordering: .relaxed).newValue == requiredCount {
            // The run ends with the last failure's code: 77 when a server refused, 74 for I/O.
            pipeline.fail(PodiumError(error.exitCode, "every output failed; stopping"))
        }
    }
}
