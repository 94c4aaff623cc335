import CPipeWire
import CPulse
import Foundation
public import PodiumCore

/// The clapper's sound: a 50 ms beep of 1 kHz at every whole second after `origin` on the
/// monotonic clock, played into the sound server's default output, so that it is heard when the
/// clapper's picture flashes. Each block is filled for when it will be heard: straight from
/// PipeWire where it runs (the graph's own time and its delay to the device, exact), else through
/// libpulse (the latency the server reports before each 10 ms is written, which PipeWire's
/// PulseAudio interface lags by tens of milliseconds when the graph's quantum changes).
public final class ClapperSound {
    /// How long each beep lasts, and its pitch.
    public static let beepLength: UInt64 = 50_000_000
    static let pitch = 1_000.0
    private enum Stream {
        case pulse(OpaquePointer)
        case pipeWire(OpaquePointer)
    }
    private let stream: Stream
    private let origin: Origin

    /// When the first beep is heard: what PipeWire's thread is handed with each block.
    private final class Origin: Sendable {
        let time: UInt64
        init(_ time: UInt64) { self.time = time }
    }

    /// Connects to the sound server `servers` names (chosen as `PipeWireSoundSource.choose` does).
    /// - Throws: 69 when there is no server.
    public init(origin: UInt64, servers: SoundServers) throws(PodiumError) {
        let origin = Origin(origin)
        self.origin = origin
        stream = PipeWireSoundSource.isChosen(servers) ? try Self.openPipeWire(origin: origin, remote: servers.pipeWire)
            : try Self.openPulse(server: servers.pulse)
    }

    deinit {
        switch stream {
        case .pulse(let connection): pa_simple_free(connection)
        case .pipeWire(let playing): cpw_sound_close(playing)
        }
    }

    /// Plays until `stop` is raised, on the calling thread (PipeWire plays on a thread of its own).
    public func play(until stop: StopFlag) {
        switch stream {
        case .pulse(let connection): play(through: connection, until: stop)
        case .pipeWire:
            while !stop.isRaised { usleep(50_000) }
        }
    }

    /// Fills `samples` (interleaved stereo) with the beeps heard from `heard` on.
    private static func fill(_ samples: UnsafeMutableBufferPointer<Float>, heard: UInt64, origin: UInt64) {
        for index in 0..<samples.count / SoundFormat.channels {
            let time = heard + SoundFormat.nanoseconds(ofFrames: index)
            let intoSecond = time >= origin ? (time - origin) % 1_000_000_000 : Self.beepLength
            let value = intoSecond < Self.beepLength
                ? Float(0.5 * sin(2 * Double.pi * Self.pitch * Double(intoSecond) / 1e9)) : 0
            for channel in 0..<SoundFormat.channels { samples[SoundFormat.channels * index + channel] = value }
        }
    }

    /// - Parameter origin: kept by the sound it plays for, which closes the stream before it goes.
    private static func openPipeWire(origin: Origin, remote: String?) throws(PodiumError) -> Stream {
        var error = [CChar](repeating: 0, count: 256)
        let context = Unmanaged.passUnretained(origin).toOpaque()
        let opened = cpw_sound_play(remote, "Podium clapper", { context, samples, frames, heard in
            guard let context, let samples else { return }
            let origin = Unmanaged<Origin>.fromOpaque(context).takeUnretainedValue().time
            ClapperSound.fill(UnsafeMutableBufferPointer(start: samples, count: Int(frames) * SoundFormat.channels),
                              heard: UInt64(max(0, heard)), origin: origin)
        }, { _, _, _ in }, context, &error, error.count)
        guard let opened else {
            throw .unavailable("the clapper's beep cannot play on PipeWire: "
                               + String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))
        }
        return .pipeWire(opened)
    }

    private static func openPulse(server: String?) throws(PodiumError) -> Stream {
        var format = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(SoundFormat.sampleRate),
                                    channels: UInt8(SoundFormat.channels))
        // A short buffer: the beep's place is known within its length.
        let bytes = UInt32(SoundFormat.sampleRate / 50 * SoundFormat.channels * MemoryLayout<Float>.size)
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: bytes, prebuf: UInt32.max, minreq: UInt32.max,
                                        fragsize: UInt32.max)
        var error: Int32 = 0
        guard let made = pa_simple_new(server, "Podium", PA_STREAM_PLAYBACK, nil, "clapper", &format, nil, &attributes,
                                       &error) else {
            throw .unavailable("the clapper's beep needs a sound server (PipeWire or PulseAudio): "
                               + String(cString: pa_strerror(error)))
        }
        return .pulse(made)
    }

    private func play(through connection: OpaquePointer, until stop: StopFlag) {
        let clock = MonotonicClock()
        var samples = [Float](repeating: 0, count: SoundFormat.sampleRate / 100 * SoundFormat.channels)
        var error: Int32 = 0
        while !stop.isRaised {
            let latency = pa_simple_get_latency(connection, &error)
            let heard = clock.now() + (latency == UInt64.max ? 0 : latency * 1_000)
            samples.withUnsafeMutableBufferPointer { Self.fill($0, heard: heard, origin: origin.time) }
            let written = samples.withUnsafeBytes { pa_simple_write(connection, $0.baseAddress, $0.count, &error) }
            guard written >= 0 else { return }
        }
        pa_simple_drain(connection, &error)
    }
}
