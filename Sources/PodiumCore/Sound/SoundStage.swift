import Synchronization

/// The run's sound encoder, on a thread of its own: it takes blocks from the sources' ring, places
/// each on the run's sound timeline by the time it was heard (the same clock as the frames' grab
/// times), mixes the sources, encodes the mix once and publishes the packets on the run's hub as
/// the run's sound stream.
///
/// Sound is placed half a frame interval after it was heard. A picture grabbed at a slot shows
/// what changed on screen over the interval before it, half an interval earlier on average, yet
/// plays at its slot; the sound of the same instant is moved as much, so picture and sound are as
/// close on average and at most half an interval apart (at 30 fps, a flash and its beep 0 to 33 ms
/// apart become -17 to +17).
///
/// The timeline never jumps: when a source delivers nothing for a while (its server went away),
/// silence fills its time up to a little before now, so every output keeps getting sound and the
/// muxers keep interleaving; at the end, silence fills up to the run's end, so the sound lasts
/// as long as the picture.
///
/// Its placers and encoder are existentials, not generic parameters: a generic stage, made in
/// another module, looked its nested types' metadata up at run time on every block.
public final class SoundStage: Sendable {
    /// The stream id it publishes, reserved on the run's hub.
    public let stream: Int
    public let counters: SoundCounters
    let ring: SoundRing
    /// Each source's factor in the mix.
    private let gains: [Float]
    private let makePlacer: @Sendable () throws(PodiumError) -> any SoundPlacing
    private let open: @Sendable (Int) throws(PodiumError) -> any SoundEncoding
    private let description = Mutex("")
    /// How much later than it was heard sound is placed: half the pictures' frame interval.
    let pictureLag: UInt64
    /// How far behind now the timeline may fall before silence fills it: more than a sound
    /// server's latency and the gaps between its deliveries, so real sound is never overtaken.
    static var silenceAfter: UInt64 { 250_000_000 }
    /// How far one source's sound may run ahead of another's in the mix: past the time silence
    /// fills a source that went quiet, with room to spare.
    static var mixCapacity: Int { 2 * SoundFormat.sampleRate }

    /// - Parameters:
    ///   - gains: each source's factor in the mix, in the order of the run's sound sources.
    ///   - frameInterval: the pictures' frame interval, in nanoseconds (0: a run without pictures).
    ///   - placer: makes a source's placer, on the stage's thread.
    ///   - open: opens the encoder on the stage's thread, with the stream id.
    public init(stream: Int, counters: SoundCounters, gains: [Float] = [1], frameInterval: UInt64,
                placer: @escaping @Sendable () throws(PodiumError) -> any SoundPlacing,
                open: @escaping @Sendable (Int) throws(PodiumError) -> any SoundEncoding) {
        precondition(!gains.isEmpty, "a sound stage mixes at least one source")
        self.stream = stream
        pictureLag = frameInterval / 2
        self.counters = counters
        self.gains = gains
        makePlacer = placer
        self.open = open
        // 100 ms a block, 3 s in all: a source delivers 5 to 20 ms at a time.
        ring = SoundRing(blockFrames: SoundFormat.sampleRate / 10, capacity: 30)
    }

    /// The encoder's line for the start message, once it is open.
    public var summary: String { description.withLock { $0 } }

    /// The stage's thread: opens the placers and the encoder, then encodes until the ring closes, and flushes.
    func run(in run: Run) {
        let encoder: any SoundEncoding
        let placers: [any SoundPlacing]
        do throws(PodiumError) {
            placers = try gains.map { _ throws(PodiumError) in try makePlacer() }
            encoder = try open(stream)
        } catch {
            run.partOpened(error)
            return
        }
        run.hub.describe(encoder.stream)
        description.withLock { $0 = encoder.summary }
        run.partOpened(nil)
        guard run.waitForCapture() else { return }
        var timeline = Timeline(encoder: encoder, placers: placers, stage: self, run: run)
        do throws(PodiumError) {
            try timeline.follow(ring)
            try encoder.flush(emit: timeline.publisher.publish)
        } catch {
            run.fail(.software("encoding sound failed: \(error.message)"))
        }
        timeline.chargeProcessorTime()
    }

    /// Hands the encoder's packets to the run's hub.
    private struct Publisher {
        let stage: SoundStage
        let run: Run
        let origin: UInt64
        let timeScale: Int64

        /// Stamps a packet with the time its sound was heard (for latency figures), and publishes it.
        func publish(_ packet: EncodedPacket) {
            var packet = packet
            let heard = packet.presentationTime * 1_000_000_000 / max(1, timeScale)
            packet.captureTime = origin &+ UInt64(max(0, heard))
            stage.counters.bytes.add(packet.size, ordering: .relaxed)
            run.hub.publish(packet)
        }
    }

    /// One source's place on the timeline.
    private struct Track {
        let placer: any SoundPlacing
        let counters: SoundSourceCounters
        /// Up to where its sound was placed.
        var covered: Int64 = 0
        /// Up to where silence filled it: sound that comes later for that stretch is left out,
        /// as the silence already stands there.
        var silenced: Int64 = 0
    }

    /// The encoder's side of the timeline: where each source has been placed up to, what fills
    /// the rest, and the mix.
    private struct Timeline: ~Copyable {
        let encoder: any SoundEncoding
        let stage: SoundStage
        let run: Run
        let origin: UInt64
        /// Where the run ends, in samples, once known (`--duration`); sound past it is cut.
        let end: Int64?
        let buffer: UnsafeMutableBufferPointer<Float>
        let publisher: Publisher
        var tracks: [Track]
        var mixer: SoundMixer
        /// When the sound threads' processor time was last added to the counters.
        var lastCharged: UInt64

        init(encoder: any SoundEncoding, placers: [any SoundPlacing], stage: SoundStage, run: Run) {
            self.encoder = encoder
            self.stage = stage
            self.run = run
            origin = run.origin
            end = run.end.map { SoundFormat.position(ofNanoseconds: Int64(bitPattern: $0 &- run.origin)) }
            buffer = .allocate(capacity: stage.ring.blockFrames * SoundFormat.channels)
            buffer.initialize(repeating: 0)
            publisher = Publisher(stage: stage, run: run, origin: run.origin,
                                  timeScale: Int64(encoder.stream.timeScale))
            tracks = zip(placers, stage.counters.sources).map { Track(placer: $0, counters: $1) }
            mixer = SoundMixer(gains: stage.gains, capacity: SoundStage.mixCapacity)
            lastCharged = threadCPUNanoseconds()
        }

        deinit { buffer.deallocate() }

        /// Until the ring closes: each block at its place, silence where none came.
        mutating func follow(_ ring: SoundRing) throws(PodiumError) {
            while true {
                // Blocks come every 20 ms; without them, a look every 50 ms is enough for silence
                // due a quarter second behind.
                switch ring.take(into: buffer, timeout: 50_000_000) {
                case .block(let source, let frames, let captureTime):
                    guard tracks.indices.contains(source) else { continue }
                    try place(frames, of: source, heardAt: captureTime)
                case .timedOut:
                    break
                case .closed:
                    let last = end ?? SoundFormat.position(ofNanoseconds: Int64(bitPattern: run.clock.now() &- origin))
                    for index in tracks.indices {
                        try silence(index, until: last)
                        let placer = tracks[index].placer
                        try placer.flush { receive($0, on: index) }
                    }
                    // A resampler still squeezing a track ends it a little early: the sound
                    // lasts to the end all the same.
                    mixer.fill(upTo: last)
                    try mix(upTo: last)
                    return
                }
                // A source that delivers nothing holds up the mix: silence stands in for it, once
                // the blocks that wait have taken their places.
                let now = run.clock.now()
                if now > origin + SoundStage.silenceAfter, ring.isEmpty {
                    let due = SoundFormat.position(ofNanoseconds: Int64(now - origin - SoundStage.silenceAfter))
                    for index in tracks.indices { try silence(index, until: due) }
                }
                try mix(upTo: end)
            }
        }

        /// Places the block of `frames` in `buffer`, from source `index`, at the place its time gives it.
        private mutating func place(_ frames: Int, of index: Int, heardAt captureTime: UInt64) throws(PodiumError) {
            let placed = captureTime &+ stage.pictureLag &- origin
            let heard = SoundFormat.position(ofNanoseconds: Int64(bitPattern: placed))
            let late = Int(max(0, min(Int64(frames), tracks[index].silenced - heard)))
            let cut = end.map { max(0, min(frames, Int($0 - heard))) } ?? frames
            guard cut > late else { return }
            let channels = SoundFormat.channels
            let samples = UnsafeBufferPointer(rebasing: buffer[late * channels..<cut * channels])
            let track = tracks[index]
            track.counters.peakTenths.store(Int(SoundLevel.peak(of: samples) * 10), ordering: .relaxed)
            try track.placer.place(samples, at: heard + Int64(late)) { receive($0, on: index) }
            track.counters.offset.store(Int(track.placer.offset), ordering: .relaxed)
            tracks[index].covered = max(track.covered, heard + Int64(cut))
        }

        /// Silence on track `index` from where it has sound up to `position`.
        private mutating func silence(_ index: Int, until position: Int64) throws(PodiumError) {
            let target = end.map { min($0, position) } ?? position
            guard target > tracks[index].covered else { return }
            let placer = tracks[index].placer
            while tracks[index].covered < target {
                let frames = Int(min(target - tracks[index].covered, Int64(stage.ring.blockFrames)))
                let samples = UnsafeMutableBufferPointer(rebasing: buffer[0..<frames * SoundFormat.channels])
                samples.update(repeating: 0)
                try placer.place(UnsafeBufferPointer(samples), at: tracks[index].covered) { receive($0, on: index) }
                stage.counters.silenceFilled.add(frames, ordering: .relaxed)
                tracks[index].covered += Int64(frames)
            }
            tracks[index].silenced = tracks[index].covered
        }

        /// What a placer handed out for source `index`: the next of its track.
        private mutating func receive(_ samples: UnsafeBufferPointer<Float>, on index: Int) {
            let dropped = mixer.append(samples, to: index)
            if dropped > 0 { stage.counters.dropped.add(dropped, ordering: .relaxed) }
        }

        /// Encodes what every source has sound for, up to `limit`.
        private mutating func mix(upTo limit: Int64?) throws(PodiumError) {
            let counters = stage.counters
            let (encoder, publisher, clock) = (encoder, publisher, run.clock)
            try mixer.mix(upTo: limit) { samples throws(PodiumError) in
                counters.peakTenths.store(Int(SoundLevel.peak(of: samples) * 10), ordering: .relaxed)
                let start = clock.now()
                try encoder.encode(samples, emit: publisher.publish)
                counters.encode.record(nanoseconds: clock.now() &- start)
            }
            chargeProcessorTime()
        }

        /// Adds the thread's processor time since the last charge to the counters (a system call,
        /// about a hundred times a second).
        mutating func chargeProcessorTime() {
            let now = threadCPUNanoseconds()
            stage.counters.processorTime.add(Int(now &- lastCharged), ordering: .relaxed)
            lastCharged = now
        }
    }
}
