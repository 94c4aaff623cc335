import Logging
public import PodiumCore
import PodiumMedia
import Synchronization

/// The recordings `podium control record start FILE` asks for: a file output like any other
/// (`MuxerOutput`, its own queue and thread), subscribed to the run's first encoding and its sound
/// while the run goes on, so it starts on the next keyframe; stopped and finalized by `record stop`
/// or by the run's end. Its failure ends nothing else.
public final class RecordingDesk: RecordingControl {
    private let hub: StreamHub
    private let program: Program
    private let capacity: Int
    private let logger: Logger
    private let clock = MonotonicClock()
    private let threads = ThreadGroup()
    private let current = Mutex<(path: String, output: MuxerOutput)?>(nil)

    /// - Parameters:
    ///   - program: the streams it records.
    ///   - capacity: packets that may wait, as for every output.
    init(hub: StreamHub, program: Program, capacity: Int, logger: Logger) {
        self.hub = hub
        self.program = program
        self.capacity = capacity
        self.logger = logger
    }

    public func start(_ path: String) throws(PodiumError) {
        let subject = PodiumError.Subject.recording(path)
        guard let url = MuxerTarget(recording: path) else {
            throw .usage("name a file ending in .mkv, .mp4, .ts or .flv", about: subject)
        }
        if let recording = current.withLock({ $0?.path }) {
            throw .usage("recording to \(recording) already; record stop first", about: subject)
        }
        let streams = hub.streams(of: program)
        guard let video = streams.first, let codec = video.video?.codec else {
            throw .usage("this run encodes nothing to record", about: subject)
        }
        try url.validate(codec: codec)
        if let sound = streams.dropFirst().first?.audio { try url.validate(sound: sound.codec) }
        // The encoder was opened for the run's outputs: for MPEG-TS alone, its parameters travel
        // in the stream, which MP4, Matroska and FLV do not read.
        if url.needs.globalHeader && video.extradata.isEmpty {
            throw .usage("this run's encoder keeps its parameters in the stream (for its network outputs); "
                         + "record to a .ts file", about: subject)
        }
        if FileStatus(path: path) != nil {
            throw .cannotCreate("the file exists (a recording never replaces one); name a new file", about: subject)
        }
        try OutputCheck.creatable(path, as: subject, overwrite: false)
        let output = MuxerOutput(target: url, program: program, flushInterval: .seconds(1),
                                 counters: SinkCounters(url: path), capacity: capacity, logger: logger)
        let opened = ReadyLatch(count: 1)
        current.withLock { $0 = (path, output) }
        threads.spawn("podium-record") { [self] in
            var told = false
            do throws(PodiumError) {
                try output.run(hub: hub, clock: clock) { error in
                    told = true
                    opened.report(error)
                }
            } catch {
                if told { logger.error("\(error)") } else { opened.report(error) }
            }
            if !told { opened.report(nil) }
            current.withLock { if $0?.output === output { $0 = nil } }
        }
        if let failure = opened.waitBlocking() {
            current.withLock { if $0?.output === output { $0 = nil } }
            throw failure
        }
    }

    public var recording: RecordingStatus? {
        current.withLock { current in
            current.map { RecordingStatus(path: $0.path, isPaused: $0.output.isPaused.load(ordering: .relaxed),
                                          seconds: Double($0.output.written.load(ordering: .relaxed)) / 1_000_000) }
        }
    }

    public func setPaused(_ paused: Bool) throws(PodiumError) -> (path: String, changed: Bool) {
        guard let (path, output) = current.withLock({ $0 }) else {
            throw .usage("record \(paused ? "pause" : "resume"): nothing is being recorded (record start FILE begins)")
        }
        let changed = output.isPaused.exchange(paused, ordering: .relaxed) != paused
        // The recording goes on from a keyframe: one now, not at the encoder's next.
        if changed && !paused, let video = program.streams.first { hub.requestKeyframe(stream: video) }
        return (path, changed)
    }

    public func stop() throws(PodiumError) -> String {
        guard let recording = current.withLock({ state -> (path: String, output: MuxerOutput)? in
            defer { state = nil }
            return state
        }) else { throw .usage("record stop: nothing is being recorded (record start FILE begins)") }
        recording.output.close()
        threads.waitBlocking()
        return recording.path
    }

    public func finish() async {
        current.withLock { $0?.output.close() }
        await threads.wait()
    }
}
