import CPulse
import Foundation
public import PodiumCore

/// Sound from the desktop's sound server through libpulse, which both PulseAudio and PipeWire's
/// PulseAudio interface serve: a recording stream read on the source's thread, 10 ms at a time,
/// in the run's sound format.
///
/// Each block is stamped with when its first sample was heard, on the run's clock: the time it
/// was read, less the stream's latency (what the server and its buffer still held) and the
/// block's own length. When the server goes away the source says so and connects again every
/// second; the run fills the time with silence.
public struct PulseSource: SoundSource {
    public let request: SoundRequest
    /// How often a lost server is tried again.
    static let retryInterval: UInt64 = 1_000_000_000
    /// Samples a channel each read takes: 10 ms.
    static let readFrames = SoundFormat.sampleRate / 100

    public init(request: SoundRequest) {
        self.request = request
    }

    /// The server's name for the source: the default output's monitor or the default input, as
    /// the server's own aliases so the stream follows the default when it changes, or the one named.
    var device: String {
        switch request {
        case .desktop: "@DEFAULT_MONITOR@"
        case .microphone: "@DEFAULT_SOURCE@"
        case .named(let name): name
        }
    }

    public func run(into feed: SoundFeed) {
        var connected: RecordingStream?
        let said: String
        do {
            // PipeWire records the default for a name it does not know: check it is there first.
            let server = try SoundServerInfo.read(for: request)
            let source = try server.source(for: request)
            connected = try RecordingStream(device: device, request: request)
            said = "sound from \(source.description) (\(source.name)) on \(server.serverName)"
        } catch {
            feed.failedToOpen(error)
            return
        }
        feed.opened(said)
        guard feed.waitForStart() else { return }
        let samples = UnsafeMutableBufferPointer<Float>.allocate(capacity: Self.readFrames * SoundFormat.channels)
        defer { samples.deallocate() }
        samples.initialize(repeating: 0)
        let clock = feed.clock
        let blockLength = SoundFormat.nanoseconds(ofFrames: Self.readFrames)
        while !feed.isStopping {
            guard let open = connected else {
                // Lost: try again each second, waking often enough to end with the run.
                let retry = clock.now() + Self.retryInterval
                while !feed.isStopping && clock.now() < retry { usleep(20_000) }
                guard !feed.isStopping else { break }
                connected = try? RecordingStream(device: device, request: request)
                continue
            }
            guard open.read(into: samples) else {
                feed.interrupted()
                connected = nil
                continue
            }
            let now = clock.now()
            let heard = now &- min(now, open.latency + blockLength)
            feed.deliver(UnsafeBufferPointer(samples), captureTime: heard)
        }
    }
}

/// One recording stream of libpulse's simple API, open on the calling thread.
final class RecordingStream {
    private let connection: OpaquePointer

    /// Connects to the sound server and opens a recording stream of `device`.
    /// - Throws: 69 when there is no server, or no such source on it.
    init(device: String, request: SoundRequest) throws(PodiumError) {
        var format = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(SoundFormat.sampleRate),
                                    channels: UInt8(SoundFormat.channels))
        // Small fragments: the server hands over 10 ms at a time, so sound is stamped closely.
        let fragment = UInt32(PulseSource.readFrames * SoundFormat.channels * MemoryLayout<Float>.size)
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max,
                                        minreq: UInt32.max, fragsize: fragment)
        var error: Int32 = 0
        let made = pa_simple_new(nil, "Podium", PA_STREAM_RECORD, device, "screen sound", &format, nil, &attributes,
                                 &error)
        guard let made else { throw Self.refusal(error, request: request) }
        connection = made
    }

    deinit { pa_simple_free(connection) }

    /// Reads `samples.count` samples; `false` when the server went away.
    func read(into samples: UnsafeMutableBufferPointer<Float>) -> Bool {
        var error: Int32 = 0
        return pa_simple_read(connection, samples.baseAddress, samples.count * MemoryLayout<Float>.size, &error) >= 0
    }

    /// What the server still held when the last read returned, in nanoseconds.
    var latency: UInt64 {
        var error: Int32 = 0
        let microseconds = pa_simple_get_latency(connection, &error)
        return microseconds == UInt64.max ? 0 : microseconds * 1_000
    }

    private static func refusal(_ error: Int32, request: SoundRequest) -> PodiumError {
        let reason = String(cString: pa_strerror(error))
        switch Int(error) {
        case Int(PA_ERR_NOENTITY.rawValue):
            return .unavailable("--audio \(request): no source named '\(request)' on the sound server")
        case Int(PA_ERR_CONNECTIONREFUSED.rawValue), Int(PA_ERR_INVALIDSERVER.rawValue):
            return .unavailable("--audio \(request): no sound server (PipeWire or PulseAudio) answers: \(reason)")
        default:
            return .unavailable("--audio \(request): the sound server refused to record: \(reason)")
        }
    }
}
