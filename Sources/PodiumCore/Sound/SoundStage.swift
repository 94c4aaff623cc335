import Synchronization

/// The run's sound encoder, on a thread of its own: it takes blocks from the source's ring, places
/// each on the run's sound timeline by the time it was heard (the same clock as the frames' grab
/// times), encodes it and publishes the packets on the run's hub as the run's sound stream.
///
/// Sound is placed half a frame interval after it was heard. A picture grabbed at a slot shows
/// what changed on screen over the interval before it, half an interval earlier on average, yet
/// plays at its slot; the sound of the same instant is moved as much, so picture and sound are as
/// close on average and at most half an interval apart (at 30 fps, a flash and its beep 0 to 33 ms
/// apart become -17 to +17).
///
/// The timeline never jumps: when the source delivers nothing for a while (its server went away),
/// silence fills the time up to a little before now, so every output keeps getting sound and the
/// muxers keep interleaving; at the end, silence fills up to the run's end, so the sound lasts
/// as long as the picture.
public final class SoundStage<Encoder: SoundEncoding>: Sendable {
    /// The stream id it publishes, reserved on the run's hub.
    public let stream: Int
    public let counters: SoundCounters
    let ring: SoundRing
    private let open: @Sendable (Int) throws(PodiumError) -> Encoder
    private let description = Mutex("")
    /// How much later than it was heard sound is placed: half the pictures' frame interval.
    let pictureLag: UInt64
    /// How far behind now the timeline may fall before silence fills it: more than a sound
    /// server's latency and the gaps between its deliveries, so real sound is never overtaken.
    static var silenceAfter: UInt64 { 250_000_000 }

    /// - Parameters:
    ///   - frameInterval: the pictures' frame interval, in nanoseconds (0: a run without pictures).
    ///   - open: opens the encoder on the stage's thread, with the stream id.
    public init(stream: Int, counters: SoundCounters, frameInterval: UInt64,
                open: @escaping @Sendable (Int) throws(PodiumError) -> Encoder) {
        self.stream = stream
        pictureLag = frameInterval / 2
        self.counters = counters
        self.open = open
        // 100 ms a block, 3 s in all: a source delivers 5 to 20 ms at a time.
        ring = SoundRing(blockFrames: SoundFormat.sampleRate / 10, capacity: 30)
    }

    /// The encoder's line for the start message, once it is open.
    public var summary: String { description.withLock { $0 } }

    /// The stage's thread: opens the encoder, then encodes until the ring closes, and flushes.
    func run(in run: Run) {
        let encoder: Encoder
        do {
            encoder = try open(stream)
        } catch {
            run.partOpened(error)
            return
        }
        run.hub.describe(encoder.stream)
        description.withLock { $0 = encoder.summary }
        run.partOpened(nil)
        guard run.waitForCapture() else { return }
        var timeline = Timeline(encoder: encoder, stage: self, run: run)
        defer { timeline.buffer.deallocate() }
        do throws(PodiumError) {
            try timeline.follow(ring)
            try encoder.flush(emit: timeline.publish)
        } catch {
            run.fail(.software("encoding sound failed: \(error.message)"))
        }
    }

    /// The encoder's side of the timeline: where sound has been placed up to, and what fills the rest.
    private struct Timeline {
        let encoder: Encoder
        let stage: SoundStage
        let run: Run
        let origin: UInt64
        /// Where the run ends, in samples, once known (`--duration`); sound past it is cut.
        let end: Int64?
        let buffer: UnsafeMutableBufferPointer<Float>
        /// Up to where the timeline has sound.
        var covered: Int64 = 0
        /// Up to where silence filled it: sound that comes later for that stretch is left out,
        /// as the silence already stands there.
        var silenced: Int64 = 0

        init(encoder: Encoder, stage: SoundStage, run: Run) {
            self.encoder = encoder
            self.stage = stage
            self.run = run
            origin = run.origin
            end = run.end.map { SoundFormat.position(ofNanoseconds: Int64(bitPattern: $0 &- run.origin)) }
            buffer = .allocate(capacity: stage.ring.blockFrames * SoundFormat.channels)
            buffer.initialize(repeating: 0)
        }

        /// Until the ring closes: each block at its place, silence where none came.
        mutating func follow(_ ring: SoundRing) throws(PodiumError) {
            let counters = stage.counters
            while true {
                switch ring.take(into: buffer, timeout: 20_000_000) {
                case .block(let frames, let captureTime):
                    let placed = captureTime &+ stage.pictureLag &- origin
                    let heard = SoundFormat.position(ofNanoseconds: Int64(bitPattern: placed))
                    let late = Int(max(0, min(Int64(frames), silenced - heard)))
                    let position = heard + Int64(late)
                    let cut = end.map { max(0, min(frames, Int($0 - heard))) } ?? frames
                    guard cut > late else { continue }
                    let channels = SoundFormat.channels
                    let samples = UnsafeBufferPointer(rebasing: buffer[late * channels..<cut * channels])
                    counters.peakTenths.store(Int(SoundLevel.peak(of: samples) * 10), ordering: .relaxed)
                    let start = run.clock.now()
                    try encoder.encode(samples, at: position, emit: publish)
                    counters.encode.record(nanoseconds: run.clock.now() &- start)
                    covered = max(covered, heard + Int64(cut))
                case .timedOut:
                    let now = run.clock.now()
                    guard now > origin + SoundStage.silenceAfter else { continue }
                    let due = Int64(now - origin - SoundStage.silenceAfter)
                    try silence(until: SoundFormat.position(ofNanoseconds: due))
                case .closed:
                    let last = end ?? SoundFormat.position(ofNanoseconds: Int64(bitPattern: run.clock.now() &- origin))
                    try silence(until: last)
                    return
                }
            }
        }

        /// Silence from where the timeline has sound up to `position`.
        private mutating func silence(until position: Int64) throws(PodiumError) {
            let target = end.map { min($0, position) } ?? position
            guard target > covered else { return }
            let counters = stage.counters
            counters.peakTenths.store(Int(SoundLevel.floor * 10), ordering: .relaxed)
            while covered < target {
                let frames = Int(min(target - covered, Int64(stage.ring.blockFrames)))
                let samples = UnsafeMutableBufferPointer(rebasing: buffer[0..<frames * SoundFormat.channels])
                samples.update(repeating: 0)
                try encoder.encode(UnsafeBufferPointer(samples), at: covered, emit: publish)
                counters.silenceFilled.add(frames, ordering: .relaxed)
                covered += Int64(frames)
            }
            silenced = covered
        }

        /// Stamps a packet with the time its sound was heard (for latency figures), and publishes it.
        func publish(_ packet: EncodedPacket) {
            var packet = packet
            let heard = packet.presentationTime * 1_000_000_000 / Int64(max(1, encoder.stream.timeScale))
            packet.captureTime = origin &+ UInt64(max(0, heard))
            stage.counters.bytes.add(packet.size, ordering: .relaxed)
            run.hub.publish(packet)
        }
    }
}

/// A sound stage of any encoder, as the run keeps it.
public protocol SoundStaging: Sendable {
    /// The stream id it publishes.
    var stream: Int { get }
    var counters: SoundCounters { get }
    var summary: String { get }
    /// The stage's thread body.
    func runStage(in run: Run)
    /// Where its source delivers.
    var soundRing: SoundRing { get }
}

extension SoundStage: SoundStaging {
    public func runStage(in run: Run) { self.run(in: run) }
    public var soundRing: SoundRing { ring }
}
