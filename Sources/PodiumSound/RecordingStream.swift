import CPulse
import PodiumCore

/// One recording stream of libpulse's asynchronous API, with a main loop of its own run on the
/// calling thread: it gives each chunk of sound with the stream's signed latency, which the simple
/// API cannot (it reads a monitor's negative latency as none, and stamps its sound too early).
final class RecordingStream {
    private let loop: OpaquePointer
    private let context: OpaquePointer
    private let stream: OpaquePointer
    /// Asks for chunks of this many samples a channel: 20 ms. The sound clock smooths the times
    /// measured, so a larger chunk costs no precision, and half the wake-ups of 10 ms ones.
    static let fragmentFrames = SoundFormat.sampleRate / 50

    /// What `next` found.
    enum Outcome: Equatable {
        /// A chunk was handed on.
        case delivered
        /// Nothing came within 50 ms.
        case waiting
        /// The server went away.
        case lost
        /// The source it records went away (the server is there): a microphone unplugged.
        case sourceGone
    }

    /// Connects to the sound server and opens a recording stream of `device`.
    ///
    /// The corresponding C functions are `pa_context_connect` and `pa_stream_connect_record`.
    /// - Parameters:
    ///   - server: the server's address; `nil` for the one `PULSE_SERVER` names, or the user's own.
    ///   - stays: the stream ends when its source goes, rather than moving to another (a source
    ///     named: another microphone would be heard in its place).
    /// - Throws: 69 when there is no server, or it refuses the stream.
    init(device: String, request: SoundRequest, server: String? = nil, stays: Bool = false) throws(PodiumError) {
        guard let loop = pa_mainloop_new() else { throw .software("out of memory connecting to the sound server") }
        guard let context = pa_context_new(pa_mainloop_get_api(loop), "Podium") else {
            pa_mainloop_free(loop)
            throw .software("out of memory connecting to the sound server")
        }
        var format = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(SoundFormat.sampleRate),
                                    channels: UInt8(SoundFormat.channels))
        guard let stream = pa_stream_new(context, "screen sound", &format, nil) else {
            pa_context_unref(context)
            pa_mainloop_free(loop)
            throw .software("out of memory opening a sound stream")
        }
        self.loop = loop
        self.context = context
        self.stream = stream
        let subject = PodiumError.Subject.sound("\(request)")
        guard pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw .unavailable("no sound server (PipeWire or PulseAudio) answers: " + reason, about: subject)
        }
        while pa_context_get_state(context) != PA_CONTEXT_READY {
            guard PA_CONTEXT_IS_GOOD(pa_context_get_state(context)) != 0, pa_mainloop_iterate(loop, 1, nil) >= 0 else {
                throw .unavailable("no sound server (PipeWire or PulseAudio) answers: " + reason, about: subject)
            }
        }
        // Fragments of 20 ms; timing kept current by the server.
        let fragment = UInt32(Self.fragmentFrames * SoundFormat.channels * MemoryLayout<Float>.size)
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max,
                                        minreq: UInt32.max, fragsize: fragment)
        let flags = pa_stream_flags_t(PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_INTERPOLATE_TIMING.rawValue
                                      | PA_STREAM_AUTO_TIMING_UPDATE.rawValue
                                      | (stays ? PA_STREAM_DONT_MOVE.rawValue : 0))
        guard pa_stream_connect_record(stream, device, &attributes, flags) >= 0 else {
            throw .unavailable("the sound server refused to record: " + reason, about: subject)
        }
        while pa_stream_get_state(stream) != PA_STREAM_READY {
            guard PA_STREAM_IS_GOOD(pa_stream_get_state(stream)) != 0, pa_mainloop_iterate(loop, 1, nil) >= 0 else {
                throw .unavailable("the sound server refused to record: " + reason, about: subject)
            }
        }
    }

    deinit {
        pa_stream_disconnect(stream)
        pa_stream_unref(stream)
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_mainloop_free(loop)
    }

    private var reason: String { String(cString: pa_strerror(pa_context_errno(context))) }

    /// Hands the next chunk to `body`, with how long before now its first sample was heard, in
    /// nanoseconds (negative: after now); waits at most 50 ms for one.
    ///
    /// The corresponding C functions are `pa_stream_peek`, `pa_stream_get_latency` and `pa_stream_drop`.
    func next(_ body: (UnsafeBufferPointer<Float>, Int64) -> Void) -> Outcome {
        for attempt in 0..<2 {
            guard PA_CONTEXT_IS_GOOD(pa_context_get_state(context)) != 0 else { return .lost }
            guard PA_STREAM_IS_GOOD(pa_stream_get_state(stream)) != 0 else { return .sourceGone }
            if pa_stream_readable_size(stream) > 0 {
                var data: UnsafeRawPointer?
                var bytes = 0
                guard pa_stream_peek(stream, &data, &bytes) >= 0 else { return .lost }
                // No data with a length is a hole in the stream: the run fills it with silence.
                if let data, bytes > 0 {
                    // The latency covers this chunk too: it is still in the stream's buffer.
                    var microseconds: pa_usec_t = 0
                    var negative: Int32 = 0
                    let known = pa_stream_get_latency(stream, &microseconds, &negative) >= 0
                    let latency = known ? Int64(microseconds) * 1_000 * (negative != 0 ? -1 : 1) : 0
                    let samples = data.assumingMemoryBound(to: Float.self)
                    body(UnsafeBufferPointer(start: samples, count: bytes / MemoryLayout<Float>.size), latency)
                }
                if bytes > 0 { pa_stream_drop(stream) }
                return .delivered
            }
            guard attempt == 0 else { break }
            // Wait for the server, at most 50 ms, so the caller sees the run stop.
            guard pa_mainloop_prepare(loop, 50_000) >= 0, pa_mainloop_poll(loop) >= 0,
                  pa_mainloop_dispatch(loop) >= 0 else { return .lost }
        }
        return .waiting
    }
}
