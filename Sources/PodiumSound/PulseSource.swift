import CPulse
import Foundation
public import PodiumCore

/// Sound from the desktop's sound server through libpulse, which both PulseAudio and PipeWire's
/// PulseAudio interface serve: a recording stream read on the source's thread, about 20 ms at a
/// time, in the run's sound format.
///
/// Each block is stamped with when its first sample was heard, on the run's clock: the time it
/// was read, less the stream's latency as the server measures it (signed: the monitor of an
/// output gets its sound before the room hears it), smoothed by the feed's sound clock. When the
/// server goes away, or a source named does (a microphone unplugged: it is not moved to another),
/// the source says so and connects again every second; the run fills the time with silence.
public struct PulseSource: SoundSource {
    public let request: SoundRequest
    /// Its level in the mix, in decibels, for the start message.
    public let gain: Double
    /// The sound server's address (`unix:/run/user/1000/pulse/native`, as `PULSE_SERVER` takes);
    /// `nil` for the one `PULSE_SERVER` names, or the user's own. A test names its private one,
    /// without changing the environment every thread of the process reads.
    public let server: String?
    /// How often a lost server is tried again.
    static let retryInterval: UInt64 = 1_000_000_000

    public init(request: SoundRequest, gain: Double = 0, server: String? = nil) {
        self.request = request
        self.gain = gain
        self.server = server
    }

    /// The server's name for the source: the default output's monitor or the default input, as
    /// the server's own aliases so the stream follows the default when it changes, or the one named.
    var device: String {
        switch request {
        case .desktop: "@DEFAULT_MONITOR@"
        case .microphone: "@DEFAULT_SOURCE@"
        case .named(let name): name
        case .application(let name): name
        }
    }

    /// A source named is recorded or nothing is: another is not heard in its place when it goes.
    private var stays: Bool { if case .named = request { true } else { false } }

    /// The stream again, once the server answers and (for a source named) has that source again:
    /// PipeWire would record its default for a name it does not know.
    private func reconnect() throws(PodiumError) -> RecordingStream {
        if stays { _ = try SoundServerInfo.read(for: request, server: server).source(for: request) }
        return try RecordingStream(device: device, request: request, server: server, stays: stays)
    }

    public func run(into feed: SoundFeed) {
        var connected: RecordingStream?
        let said: String
        do {
            // PipeWire records the default for a name it does not know: check it is there first.
            let info = try SoundServerInfo.read(for: request, server: server)
            let source = try info.source(for: request)
            connected = try RecordingStream(device: device, request: request, server: server, stays: stays)
            let level = gain == 0 ? "" : " at \(gain > 0 ? "+" : "")\(gain.plain) dB"
            said = "sound from \(source.description) (\(source.name))\(level) on \(info.serverName)"
        } catch {
            feed.failedToOpen(error)
            return
        }
        feed.opened(said)
        guard feed.waitForStart() else { return }
        let clock = feed.clock
        while !feed.isStopping {
            guard let open = connected else {
                // Lost: try again each second, waking often enough to end with the run.
                let retry = clock.now() + Self.retryInterval
                while !feed.isStopping && clock.now() < retry { usleep(20_000) }
                guard !feed.isStopping else { break }
                connected = try? reconnect()
                continue
            }
            let outcome = open.next { samples, latency in
                // The first sample was heard `latency` before now; a monitor's may be negative:
                // what an output plays reaches its monitor before the room hears it.
                let now = clock.now()
                let heard = latency >= 0 ? now &- min(now, UInt64(latency)) : now &+ UInt64(-latency)
                feed.deliver(samples, heardAt: heard)
            }
            if outcome == .lost || outcome == .sourceGone {
                feed.interrupted(device: outcome == .sourceGone ? "\(request)" : nil)
                connected = nil
            }
        }
    }
}
