import CPipeWire
import Foundation
public import PodiumCore
import Synchronization

/// What the desktop plays, a microphone, a source by name, or one application's sound, read
/// straight from PipeWire on the graph's own clock: each block is stamped with the graph cycle's
/// time less its delay to or from the device (`pw_stream_get_time_n`), which moves only when the
/// graph does. Through PipeWire's PulseAudio interface the latency a stream reports swings by
/// tens of milliseconds in its first seconds (a recording's sound wandered up to 90 ms).
///
/// PipeWire delivers on its own thread; the thread the run gives `run(into:)` opens, watches and
/// reopens the stream.
public final class PipeWireSoundSource: SoundSource {
    public let request: SoundRequest
    /// The level it is mixed at, in dB, for the start message.
    public let gain: Double
    /// A PipeWire socket's path; the user's PipeWire when `nil`.
    public let remote: String?

    public init(request: SoundRequest, gain: Double = 0, remote: String? = nil) {
        self.request = request
        self.gain = gain
        self.remote = remote
    }

    /// Whether a PipeWire takes connections at `remote` (the user's when `nil`).
    public static func isReachable(remote: String? = nil) -> Bool {
        cpw_reachable(remote) != 0
    }

    /// What the stream records, found in the graph before it opens.
    struct Target {
        /// A sink's or a source's `node.name`; `nil` for the default.
        var name: String?
        /// An application's stream; `UInt32.max` (`PW_ID_ANY`) for none.
        var node = UInt32.max
        /// A sink's monitor: what it plays.
        var monitor: Bool
        /// What it records, for the start message.
        var said: String
    }

    /// - Throws: 69 when PipeWire cannot be reached or has no such source or application.
    func target() throws(PodiumError) -> Target {
        switch request {
        case .desktop:
            return Target(name: nil, monitor: true, said: "what the default output plays")
        case .microphone:
            return Target(name: nil, monitor: false, said: "the default input")
        case .named(let name):
            let sinks = try PipeWireNode.list("Audio/Sink", remote: remote)
            let sources = try PipeWireNode.list("Audio/Source", remote: remote)
            if name.hasSuffix(".monitor"), let sink = sinks.first(where: { $0.name + ".monitor" == name }) {
                return Target(name: sink.name, monitor: true, said: "what \(sink.label ?? sink.name) plays (\(name))")
            }
            if let source = sources.first(where: { $0.name == name }) {
                return Target(name: source.name, monitor: false, said: "\(source.label ?? source.name) (\(name))")
            }
            let there = sources.map(\.name) + sinks.map { $0.name + ".monitor" }
            throw .unavailable("no source named '\(name)' on PipeWire (there: "
                               + (there.isEmpty ? "none" : there.joined(separator: ", ")) + ")",
                               about: .sound("\(request)"))
        case .application(let name):
            let streams = try PipeWireNode.list("Stream/Output/Audio", remote: remote)
            let wanted = name.lowercased()
            let matches = streams.filter {
                ($0.application ?? "").lowercased().contains(wanted) || $0.name.lowercased().contains(wanted)
            }
            guard let stream = matches.first else {
                let playing = Set(streams.map { $0.application ?? $0.name }).sorted()
                throw .unavailable("no application named '\(name)' is playing sound (playing now: "
                                   + (playing.isEmpty ? "none" : playing.joined(separator: ", ")) + ")",
                                   about: .sound("\(request)"))
            }
            return Target(name: nil, node: stream.id, monitor: false,
                          said: "the sound of \(stream.application ?? stream.name) (PipeWire stream \(stream.id))")
        }
    }

    public func run(into feed: SoundFeed) {
        let target: Target
        let link = SoundLink(feed: feed)
        var stream: OpaquePointer?
        do {
            target = try self.target()
            stream = try open(target, link: link)
        } catch {
            feed.failedToOpen(error)
            return
        }
        let level = gain == 0 ? "" : " at \(gain > 0 ? "+" : "")\(gain.plain) dB"
        feed.opened("sound from \(target.said)\(level) on PipeWire")
        defer { cpw_sound_close(stream) }
        guard feed.waitForStart() else { return }
        link.started.store(true, ordering: .releasing)
        feed.onStop { link.wake.signal() }
        // Asleep until the stream ends or the run stops; then once a second until it is back.
        while !feed.isStopping {
            _ = link.wake.wait(timeout: stream == nil ? .now() + .seconds(1) : .distantFuture)
            guard !feed.isStopping else { break }
            if stream != nil, link.ended.load(ordering: .acquiring) {
                // The server went away, the source named did (a microphone unplugged), or the
                // application stopped: silence until it is back.
                let device: String? = if case .named(let name) = request, Self.isReachable(remote: remote) {
                    name
                } else {
                    nil
                }
                feed.interrupted(device: device)
                cpw_sound_close(stream)
                stream = nil
            } else if stream == nil {
                link.reopened()
                stream = (try? self.target()).flatMap { try? open($0, link: link) }
            }
        }
    }

    /// Opens the stream, its blocks going to `link`.
    private func open(_ target: Target, link: SoundLink) throws(PodiumError) -> OpaquePointer {
        var error = [CChar](repeating: 0, count: 256)
        let context = Unmanaged.passUnretained(link).toOpaque()
        let monitor: Int32 = target.monitor ? 1 : 0
        let opened = cpw_sound_open(remote, target.name, target.node, monitor, { context, samples, frames, heard in
            guard let context, let samples else { return }
            Unmanaged<SoundLink>.fromOpaque(context).takeUnretainedValue()
                .receive(UnsafeBufferPointer(start: samples, count: Int(frames) * SoundFormat.channels),
                         heard: heard)
        }, { context, state, _ in
            guard let context, state == Int32(CPW_STATE_ENDED) else { return }
            let link = Unmanaged<SoundLink>.fromOpaque(context).takeUnretainedValue()
            link.ended.store(true, ordering: .releasing)
            link.wake.signal()
        }, context, &error, error.count)
        guard let opened else {
            throw .unavailable("PipeWire: \(String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))",
                               about: .sound("\(request)"))
        }
        return opened
    }
}

/// Where PipeWire's thread hands the sound: on to the run's feed once capture started, gathered
/// into blocks of at least 40 ms. PipeWire hands on a quantum at a time (5 to 21 ms): passed on as
/// they came, the encoder's thread woke 190 times a second; at 20 ms a block the sound cost 0.006
/// cores more than at 40 ms (`podium bench --audio`, AAC 0.031 against 0.025), which puts up to
/// 20 ms more between a sound and its way out (a viewer's pictures wait for their sound).
/// Thread-safe.
final class SoundLink: Sendable {
    let feed: SoundFeed
    let started = Atomic(false)
    let ended = Atomic(false)
    /// Wakes the source's thread: the stream ended, or the run stops.
    let wake = DispatchSemaphore(value: 0)
    /// Whether the feed counts this thread's processor time yet (PipeWire's thread is new each open).
    private let charging = Atomic(false)
    private let gathered: Mutex<Gathered>

    /// The samples gathered, made once: PipeWire's thread does not allocate.
    private struct Gathered: Sendable {
        var samples = [Float](repeating: 0, count: SoundLink.gatherCapacity * SoundFormat.channels)
        var frames = 0
        /// When the first was heard.
        var heard: Int64 = 0
    }

    /// Blocks go on once they hold this many samples a channel (40 ms)...
    static let gatherFrames = SoundFormat.sampleRate / 25
    /// ... and a quantum larger than what is left goes on by itself.
    static let gatherCapacity = 2 * gatherFrames

    init(feed: SoundFeed) {
        self.feed = feed
        gathered = Mutex(Gathered())
    }

    /// A new stream, on a new thread of PipeWire's, is about to deliver; what the last gathered is
    /// left out (it ended, and silence stands where it stopped).
    func reopened() {
        ended.store(false, ordering: .releasing)
        charging.store(false, ordering: .relaxed)
        gathered.withLock { $0.frames = 0 }
    }

    /// On PipeWire's thread: a block heard at `heard` nanoseconds on CLOCK_MONOTONIC.
    func receive(_ samples: UnsafeBufferPointer<Float>, heard: Int64) {
        guard started.load(ordering: .acquiring) else { return }
        if !charging.exchange(true, ordering: .relaxed) { feed.deliversFromThisThread() }
        gathered.withLock { gathered in
            let frames = samples.count / SoundFormat.channels
            if gathered.frames + frames > Self.gatherCapacity { flush(&gathered) }
            guard frames <= Self.gatherCapacity else {
                feed.deliver(samples, heardAt: UInt64(max(0, heard)))
                return
            }
            if gathered.frames == 0 { gathered.heard = heard }
            let start = gathered.frames * SoundFormat.channels
            gathered.samples.withUnsafeMutableBufferPointer { room in
                _ = UnsafeMutableBufferPointer(rebasing: room[start..<start + samples.count])
                    .update(fromContentsOf: samples)
            }
            gathered.frames += frames
            if gathered.frames >= Self.gatherFrames { flush(&gathered) }
        }
    }

    private func flush(_ gathered: inout Gathered) {
        guard gathered.frames > 0 else { return }
        let (count, heard) = (gathered.frames * SoundFormat.channels, UInt64(max(0, gathered.heard)))
        gathered.samples.withUnsafeBufferPointer { all in
            feed.deliver(UnsafeBufferPointer(rebasing: all[0..<count]), heardAt: heard)
        }
        gathered.frames = 0
    }
}

extension PipeWireSoundSource {
    /// The source for `input`: read straight from PipeWire where it runs, unless `servers` names a
    /// PulseAudio server; through libpulse otherwise.
    public static func choose(for input: SoundInput, servers: SoundServers) -> any SoundSource {
        guard isChosen(servers) else {
            return PulseSource(request: input.source, gain: input.gain, server: servers.pulse)
        }
        return PipeWireSoundSource(request: input.source, gain: input.gain, remote: servers.pipeWire)
    }

    /// Whether sound goes straight to and from PipeWire: it runs, and `servers` names no
    /// PulseAudio server.
    static func isChosen(_ servers: SoundServers) -> Bool {
        servers.pulse == nil && isReachable(remote: servers.pipeWire)
    }
}
