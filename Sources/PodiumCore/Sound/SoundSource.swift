import Logging
import Synchronization

/// Where a run's sound comes from: a sound server's source (what the desktop plays, a
/// microphone), read on the thread the run gives it; or a fake in tests.
public protocol SoundSource: Sendable {
    /// Runs the source on a thread the run gives it, until the run stops: connects there, says so
    /// with `feed.opened` (or `feed.failedToOpen`), waits for `feed.waitForStart()`, then delivers
    /// sound with `feed.deliver` until `feed.isStopping`. A source that loses its server says so
    /// with `feed.interrupted()` and tries again; the run goes on with silence meanwhile.
    func run(into feed: SoundFeed)
}

/// What a sound source delivers to: the run's ring of sound blocks, and the run's start and stop.
///
/// Thread-safe; sound comes from one thread at a time (the source's).
public final class SoundFeed: Sendable {
    public let counters: SoundCounters
    let ring: SoundRing
    private let run: Run
    /// Its place among the run's sources, after the pictures'.
    private let index: Int
    /// Its number among the sources the sound stage mixes.
    private let source: Int
    /// The source thread's processor time when it was last added to the counters.
    private let lastCharged = Atomic<UInt64>(0)
    /// Smooths the times the source measures; only its thread uses it (the lock is never contended).
    private let soundClock: Mutex<SoundClock>
    /// The blocks taken while the clock settles (a fraction of a second), placed once it has.
    private let held = Mutex([Float]())
    /// When the source lost its server (on the run's clock); 0 while it has it.
    private let lostAt = Atomic<UInt64>(0)

    init(ring: SoundRing, counters: SoundCounters, run: Run, index: Int, source: Int, settlingBlocks: Int) {
        soundClock = Mutex(SoundClock(settlingBlocks: settlingBlocks))
        self.ring = ring
        self.counters = counters
        self.run = run
        self.index = index
        self.source = source
    }

    private var sourceCounters: SoundSourceCounters? {
        counters.sources.indices.contains(source) ? counters.sources[source] : nil
    }

    /// The source is connected; `description` says what it captures, for the start message.
    public func opened(_ description: String) { run.sourceOpened(index, description) }

    /// The source cannot capture (no sound server, no such source): the run ends before anything
    /// is captured or written.
    public func failedToOpen(_ error: PodiumError) { run.sourceFailed(error) }

    /// Blocks the source's thread until capture starts; `false` when the run ended before that.
    public func waitForStart() -> Bool {
        let started = run.waitForCapture()
        lastCharged.store(threadCPUNanoseconds(), ordering: .relaxed)
        return started
    }

    /// Sound is delivered from the calling thread from now on (a library's own thread, not the
    /// one `run(into:)` was given): its processor time is what counts from here.
    public func deliversFromThisThread() {
        lastCharged.store(threadCPUNanoseconds(), ordering: .relaxed)
    }

    public var isStopping: Bool { run.isStopping }

    public var clock: any PacingClock { run.clock }

    /// Runs `handler` when the run stops, to end a blocking read.
    public func onStop(_ handler: @escaping @Sendable () -> Void) { run.onStop(handler) }

    /// Hands on `samples` (interleaved, `SoundFormat`), the first of them measured to be heard at
    /// `measured` on the run's clock (smoothed by a `SoundClock`; the first few blocks of a source,
    /// after it reconnects and while its blocks stray off the line, are held until it knows where
    /// they go); never waits.
    public func deliver(_ samples: UnsafeBufferPointer<Float>, heardAt measured: UInt64) {
        let (stamped, heldStart) = soundClock.withLock { clock in
            (clock.stamp(measured: measured, frames: samples.count / SoundFormat.channels), clock.takeHeldStart())
        }
        if lostAt.load(ordering: .relaxed) != 0 { sayBack() }
        let now = threadCPUNanoseconds()
        counters.processorTime.add(Int(now &- lastCharged.exchange(now, ordering: .relaxed)), ordering: .relaxed)
        if let stamped, heldStart == nil {
            put(samples, at: stamped)
            return
        }
        held.withLock { held in
            if stamped == nil { held.append(contentsOf: samples) }
            guard let heldStart else { return }
            held.withUnsafeBufferPointer { put($0, at: heldStart) }
            held.removeAll(keepingCapacity: true)
        }
        // A block back on the line after strays goes after them.
        if let stamped { put(samples, at: stamped) }
    }

    /// Puts `samples`, the first heard at `captureTime`, into the ring a block at a time.
    private func put(_ samples: UnsafeBufferPointer<Float>, at captureTime: UInt64) {
        var start = 0
        while start < samples.count {
            let count = min(samples.count - start, ring.blockFrames * SoundFormat.channels)
            let block = UnsafeBufferPointer(rebasing: samples[start..<start + count])
            let frames = count / SoundFormat.channels
            let time = captureTime + SoundFormat.nanoseconds(ofFrames: start / SoundFormat.channels)
            if ring.put(block, source: source, captureTime: time) {
                counters.captured.add(frames, ordering: .relaxed)
            } else {
                counters.dropped.add(frames, ordering: .relaxed)
            }
            start += count
        }
    }

    /// The source lost its server, or its device went away (`device`: a microphone unplugged),
    /// and tries again; silence fills the time until it is back. Said once, as its coming back is.
    public func interrupted(device: String? = nil) {
        sourceCounters?.reconnecting.store(true, ordering: .relaxed)
        soundClock.withLock { $0.reset() }
        held.withLock { $0.removeAll(keepingCapacity: true) }
        guard lostAt.exchange(max(1, run.clock.now()), ordering: .relaxed) == 0 else { return }
        let what = device.map { "\($0) went away" } ?? "\(name) lost its sound server"
        run.logger.warning("sound: \(what); silence until it is back")
    }

    /// The first sound after the source lost its server: said once, with how long it was away.
    private func sayBack() {
        let lost = lostAt.exchange(0, ordering: .relaxed)
        sourceCounters?.reconnecting.store(false, ordering: .relaxed)
        guard lost != 0 else { return }
        let seconds = Double(run.clock.now() &- lost) / 1e9
        run.logger.notice("sound: \(name) is back after \(((seconds * 10).rounded() / 10).plain) s of silence")
    }

    /// The source as the run's lines name it.
    private var name: String { sourceCounters.map { "the source \($0.name)" } ?? "the sound" }
}
