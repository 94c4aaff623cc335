import CPulse
import Foundation
public import PodiumCore

/// The clapper's sound: a 50 ms beep of 1 kHz at every whole second after `origin` on the
/// monotonic clock, played into the sound server's default output, so that it is heard when the
/// clapper's picture flashes. The stream's latency (what the server holds before it is heard) is
/// read before each 10 ms of sound is written, and the beep placed by it.
public final class ClapperSound {
    /// How long each beep lasts, and its pitch.
    public static let beepLength: UInt64 = 50_000_000
    static let pitch = 1_000.0
    private let connection: OpaquePointer
    private let origin: UInt64

    /// Connects to the sound server.
    /// - Throws: 69 when there is no server.
    public init(origin: UInt64) throws(PodiumError) {
        var format = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(SoundFormat.sampleRate),
                                    channels: UInt8(SoundFormat.channels))
        // A short buffer: the beep's place is known within its length.
        let bytes = UInt32(SoundFormat.sampleRate / 50 * SoundFormat.channels * MemoryLayout<Float>.size)
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: bytes, prebuf: UInt32.max, minreq: UInt32.max,
                                        fragsize: UInt32.max)
        var error: Int32 = 0
        guard let made = pa_simple_new(nil, "Podium", PA_STREAM_PLAYBACK, nil, "clapper", &format, nil, &attributes,
                                       &error) else {
            throw .unavailable("the clapper's beep needs a sound server (PipeWire or PulseAudio): "
                               + String(cString: pa_strerror(error)))
        }
        connection = made
        self.origin = origin
    }

    deinit { pa_simple_free(connection) }

    /// Plays until `stop` is raised, on the calling thread (each write waits for room).
    public func play(until stop: StopFlag) {
        let clock = MonotonicClock()
        let frames = SoundFormat.sampleRate / 100
        var samples = [Float](repeating: 0, count: frames * SoundFormat.channels)
        var error: Int32 = 0
        while !stop.isRaised {
            let latency = pa_simple_get_latency(connection, &error)
            let heard = clock.now() + (latency == UInt64.max ? 0 : latency * 1_000)
            for index in 0..<frames {
                let time = heard + SoundFormat.nanoseconds(ofFrames: index)
                let intoSecond = time >= origin ? (time - origin) % 1_000_000_000 : Self.beepLength
                let value = intoSecond < Self.beepLength
                    ? Float(0.5 * sin(2 * Double.pi * Self.pitch * Double(intoSecond) / 1e9)) : 0
                samples[2 * index] = value
                samples[2 * index + 1] = value
            }
            let written = samples.withUnsafeBytes { pa_simple_write(connection, $0.baseAddress, $0.count, &error) }
            guard written >= 0 else { return }
        }
        pa_simple_drain(connection, &error)
    }
}
