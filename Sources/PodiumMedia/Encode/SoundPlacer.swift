import CFFmpeg
public import PodiumCore

/// Puts one sound source on the run's timeline with libswresample (its `async` mode): each block
/// comes with the place its capture time gives it, and the track that comes out follows those
/// places. It stretches or squeezes by at most 1 ms a second to follow a sound card whose clock
/// drifts from the monotonic one, and fills a gap with silence (or trims sound that came late)
/// when the difference passes 20 ms: a source that lost sound (PipeWire does, 37 ms, when its
/// quantum shortens) is back in place at once, not slid there at 1 ms a second. The track starts at
/// the run's first slot.
///
/// Not thread-safe: made on the sound stage's thread, which owns the resampler, and used there alone.
public final class SoundPlacer: SoundPlacing {
    private let resampler: OwnedResampler
    /// What one block came out as; grows when a gap is filled.
    private var output: UnsafeMutableBufferPointer<Float>
    /// Samples a channel handed out so far: where the track has come to.
    private var handedOut: Int64 = 0
    public private(set) var offset: Int64 = 0
    private static var rate: Int32 { Int32(SoundFormat.sampleRate) }

    /// Opens the resampler.
    ///
    /// The corresponding C functions are `swr_alloc_set_opts2` and `swr_init`.
    public init() throws(PodiumError) {
        var inputLayout = AVChannelLayout()
        var outputLayout = AVChannelLayout()
        av_channel_layout_default(&inputLayout, Int32(SoundFormat.channels))
        av_channel_layout_default(&outputLayout, Int32(SoundFormat.channels))
        var made: OpaquePointer?
        guard swr_alloc_set_opts2(&made, &outputLayout, AV_SAMPLE_FMT_FLT, Self.rate, &inputLayout, AV_SAMPLE_FMT_FLT,
                                  Self.rate, 0, nil) >= 0, let resampler = OwnedResampler(made) else {
            throw .software("out of memory opening the resampler")
        }
        // Follow the timestamps: stretch or squeeze by up to 48 samples a second (1 ms), fill or
        // trim beyond 20 ms (the sound clock's stamps are smooth within it); the timeline starts
        // at the run's first slot. Up to 1 % was tried, to follow a PipeWire null output running
        // 0.3 % slow: it put the sound 10 to 25 ms early against the clapper read back through
        // nginx-rtmp (0.1 %: three runs of three within the 20 ms target), so it waits until that
        // is understood.
        let pointer = UnsafeMutableRawPointer(resampler.pointer)
        av_opt_set_double(pointer, "async", Double(SoundFormat.sampleRate) / 1_000, 0)
        av_opt_set_double(pointer, "min_hard_comp", 0.02, 0)
        av_opt_set_int(pointer, "first_pts", 0, 0)
        // Resampling from the start: the first correction would otherwise open the resampler
        // anew, which puts the timeline back to its start and fills the whole run so far with silence.
        av_opt_set_int(pointer, "flags", Int64(SWR_FLAG_RESAMPLE), 0)
        guard swr_init(resampler.pointer) >= 0 else { throw .software("the resampler does not open") }
        self.resampler = resampler
        output = .allocate(capacity: SoundFormat.sampleRate / 5 * SoundFormat.channels)
        output.initialize(repeating: 0)
    }

    deinit { output.deallocate() }

    /// The corresponding C functions are `swr_next_pts`, `swr_convert` and `swr_get_delay`.
    public func place(_ samples: UnsafeBufferPointer<Float>, at position: Int64,
                      emit: (UnsafeBufferPointer<Float>) -> Void) throws(PodiumError) {
        let frames = samples.count / SoundFormat.channels
        // In units of 1 / (input rate × output rate) seconds.
        _ = swr_next_pts(resampler.pointer, position * Int64(SoundFormat.sampleRate))
        try convert(samples.baseAddress, frames: frames, emit: emit)
        let delay = swr_get_delay(resampler.pointer, Int64(SoundFormat.sampleRate))
        offset = handedOut + delay - (position + Int64(frames))
    }

    public func flush(emit: (UnsafeBufferPointer<Float>) -> Void) throws(PodiumError) {
        try convert(nil, frames: 0, emit: emit)
    }

    /// Resamples `frames` samples a channel from `input` (`nil`: what the resampler holds) and
    /// hands out what came of them.
    private func convert(_ input: UnsafePointer<Float>?, frames: Int,
                         emit: (UnsafeBufferPointer<Float>) -> Void) throws(PodiumError) {
        let room = Int(swr_get_out_samples(resampler.pointer, Int32(frames)))
        guard room > 0 else { return }
        if room * SoundFormat.channels > output.count {
            output.deallocate()
            output = .allocate(capacity: room * SoundFormat.channels)
            output.initialize(repeating: 0)
        }
        var target: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(output.baseAddress)?
            .assumingMemoryBound(to: UInt8.self)
        var source: UnsafePointer<UInt8>? = UnsafeRawPointer(input)?.assumingMemoryBound(to: UInt8.self)
        let made = withUnsafeMutablePointer(to: &target) { targets in
            withUnsafeMutablePointer(to: &source) { sources in
                swr_convert(resampler.pointer, targets, Int32(room), input == nil ? nil : sources, Int32(frames))
            }
        }
        guard made >= 0 else { throw .software("resampling sound failed: \(FFmpegError(code: made))") }
        handedOut += Int64(made)
        emit(UnsafeBufferPointer(rebasing: output[0..<Int(made) * SoundFormat.channels]))
    }
}
