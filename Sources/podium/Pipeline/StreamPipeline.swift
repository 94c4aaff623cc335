import Foundation
import Logging
import PodiumCore
import PodiumMedia
import PodiumX11
import Synchronization

/// The running job: a capture thread, an encode thread and a thread per sink.
///
/// ```
/// capture ──latest-wins slot──▶ encode ──bounded queue per sink──▶ sink, sink, …
/// ```
/// Capture never waits for the encoder (a frame still pending is replaced and counted), and the
/// encoder never waits for a sink (each sink drops its own packets).
final class StreamPipeline: Sendable {
    /// When the run ends by itself.
    struct Limits: Sendable {
        var duration: Duration?
        var frames: Int?
    }

    let counters: PipelineCounters
    private let capture: ScreenCapture
    private let encoder: VideoEncoder
    private let sinks: [PacketSink]
    private let limits: Limits
    private let interval: UInt64
    private let clock = MonotonicClock()
    private let stopFlag = StopFlag()
    private let slot = LatestSlot<CapturedFrame>()
    private let failure = Mutex<PodiumError?>(nil)
    private let failedSinks = Atomic<Int>(0)
    private let logger: Logger

    init(capture: ScreenCapture, encoder: VideoEncoder, sinks: [PacketSink], counters: PipelineCounters, fps: FrameRate, limits: Limits, logger: Logger) {
        self.capture = capture
        self.encoder = encoder
        self.sinks = sinks
        self.counters = counters
        self.interval = fps.intervalNanoseconds
        self.limits = limits
        self.logger = logger
    }

    /// Runs every stage to the end, which comes with the limits, `stop()`, a lost X display or
    /// the loss of every sink.
    /// - Returns: the error that ended the run, or `nil` for a clean end.
    func run() async -> PodiumError? {
        let sinkThreads = DispatchGroup()
        // Files and datagrams open at once; capture waits for them so a file gets the first frame.
        // A TCP listener waits for its client as long as it takes, and joins on a keyframe.
        let opening = DispatchGroup()
        for sink in sinks {
            let waitForIt = !sink.opensLate
            if waitForIt { opening.enter() }
            spawn("podium-sink", group: sinkThreads) {
                self.runSink(sink) { if waitForIt { opening.leave() } }
            }
        }
        await opening.wait()
        let stages = DispatchGroup()
        spawn("podium-capture", group: stages) { self.captureLoop() }
        spawn("podium-encode", group: stages) { self.encodeLoop() }
        await stages.wait()
        // The encoder is flushed and every sink closed: they write what is queued and finalize.
        // A destination that still does not take its packets after a grace period is cut off.
        if await !sinkThreads.wait(timeout: .seconds(5)) {
            logger.warning("an output is still busy 5 s after the end; giving up on it")
            sinks.forEach { $0.abort() }
            await sinkThreads.wait()
        }
        return failure.withLock { $0 }
    }

    /// Asks the run to end: capture stops, the encoder drains, every output is finalized.
    func stop() {
        guard stopFlag.raise() else { return }
        // A sink still waiting for its peer would wait forever.
        sinks.forEach { $0.abortIfOpening() }
    }

    private func fail(_ error: PodiumError) {
        failure.withLock { $0 = $0 ?? error }
        stop()
    }

    private func captureLoop() {
        var pacer = FramePacer(interval: interval)
        var sequence: UInt64 = 0
        let start = clock.now()
        let end = limits.duration.map { start + UInt64($0.nanoseconds) }
        while !stopFlag.isRaised {
            guard let slotTaken = pacer.nextSlot(clock: clock, maximumSleep: 50_000_000) else { continue }
            counters.skipped.add(slotTaken.skipped, ordering: .relaxed)
            if let end, slotTaken.deadline >= end {
                stop()
                break
            }
            let grabStart = clock.now()
            let captured: CapturedFrame?
            do {
                captured = try capture.capture(sequence: sequence, time: grabStart)
            } catch {
                fail(.unavailable("lost the X display: \(error)"))
                break
            }
            guard let frame = captured else {
                counters.noBuffer.add(1, ordering: .relaxed)
                continue
            }
            counters.grab.record(nanoseconds: clock.now() - grabStart)
            counters.captured.add(1, ordering: .relaxed)
            sequence += 1
            frame.buffer.share(with: 1)
            if let displaced = slot.offer(frame) {
                displaced.buffer.release()
                if displaced.sequence != frame.sequence { counters.encodeDropped.add(1, ordering: .relaxed) }
            }
        }
        slot.close()
    }

    private func encodeLoop() {
        var encoded = 0
        var firstCapture: UInt64?
        let emit: (EncodedPacket) -> Void = { packet in
            self.counters.encodedBytes.add(packet.size, ordering: .relaxed)
            for sink in self.sinks { sink.offer(packet) }
        }
        while let frame = slot.take() {
            defer { frame.buffer.release() }
            if let limit = limits.frames, encoded >= limit { continue }
            let origin = firstCapture ?? frame.captureTime
            firstCapture = origin
            // Every sink's request is read (and cleared), even once one has asked.
            var keyframe = false
            for sink in sinks where sink.takeKeyframeRequest() { keyframe = true }
            do {
                let convertStart = clock.now()
                try encoder.convert(frame)
                let encodeStart = clock.now()
                counters.convert.record(nanoseconds: encodeStart - convertStart)
                try encoder.encodeConverted(time: Int64((frame.captureTime - origin) / 1_000), keyframe: keyframe, emit: emit)
                counters.encode.record(nanoseconds: clock.now() - encodeStart)
            } catch {
                fail(.software("encoding with \(encoder.name) failed: \(error)"))
                break
            }
            encoded += 1
            counters.encoded.add(1, ordering: .relaxed)
            if encoded == limits.frames { stop() }
        }
        do {
            try encoder.flush(emit: emit)
        } catch {
            logger.warning("the encoder could not be flushed: \(error)")
        }
        sinks.forEach { $0.close() }
    }

    private func runSink(_ sink: PacketSink, opened: () -> Void) {
        do {
            try sink.run(clock: clock, opened: opened)
        } catch {
            if stopFlag.isRaised && !sink.counters.failed.load(ordering: .relaxed) { return }
            logger.error("\(error.message)")
            if failedSinks.add(1, ordering: .relaxed).newValue == sinks.count {
                fail(.io("every output failed; stopping"))
            }
        }
    }

    private func spawn(_ name: String, group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        let thread = Thread {
            body()
            group.leave()
        }
        thread.name = name
        thread.start()
    }
}

extension DispatchGroup {
    /// Waits without blocking the cooperative pool.
    func wait() async {
        await withCheckedContinuation { continuation in
            notify(queue: .global()) { continuation.resume() }
        }
    }

    /// Waits up to `timeout`; returns whether everything finished.
    func wait(timeout: Duration) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let result = self.wait(timeout: .now() + .nanoseconds(Int(timeout.nanoseconds)))
                continuation.resume(returning: result == .success)
            }
        }
    }
}
