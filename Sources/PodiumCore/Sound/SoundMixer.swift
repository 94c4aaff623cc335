/// Sums the run's sound sources into the one track the encoder takes. Each source comes placed on
/// the timeline as an unbroken track of its own; the mix goes as far as every track has sound,
/// each at its gain, and stays within full scale. One source at its own level passes as it is.
///
/// Not thread-safe: the sound stage's thread alone.
struct SoundMixer: ~Copyable {
    /// One source's sound not yet mixed: `count` samples a channel, the first at `mixed`.
    private struct Track {
        let gain: Float
        let samples: UnsafeMutableBufferPointer<Float>
        var count = 0
    }

    private var tracks: [Track]
    /// The most samples a channel a track holds: how far one source may run ahead of another.
    let capacity: Int
    private let output: UnsafeMutableBufferPointer<Float>
    /// Up to where the mix was handed out: each track's first sample not yet mixed is here.
    private(set) var mixed: Int64 = 0

    /// - Parameters:
    ///   - gains: each source's factor.
    ///   - capacity: the most samples of each channel a track holds.
    init(gains: [Float], capacity: Int) {
        self.capacity = capacity
        tracks = gains.map { gain in
            let samples = UnsafeMutableBufferPointer<Float>.allocate(capacity: capacity * SoundFormat.channels)
            samples.initialize(repeating: 0)
            return Track(gain: gain, samples: samples)
        }
        output = .allocate(capacity: capacity * SoundFormat.channels)
        output.initialize(repeating: 0)
    }

    deinit {
        for track in tracks { track.samples.deallocate() }
        output.deallocate()
    }

    /// Whether the mix is the one source's sound unchanged.
    private var passesThrough: Bool { tracks.count == 1 && tracks[0].gain == 1 }

    /// Where track `index` has sound up to.
    func end(of index: Int) -> Int64 { mixed + Int64(tracks[index].count) }

    /// Appends `samples` to the end of track `index`.
    /// - Returns: the samples of each channel that found no room (dropped).
    mutating func append(_ samples: UnsafeBufferPointer<Float>, to index: Int) -> Int {
        let channels = SoundFormat.channels
        let frames = samples.count / channels
        let room = capacity - tracks[index].count
        let taken = min(frames, room)
        if taken > 0, let source = samples.baseAddress, let target = tracks[index].samples.baseAddress {
            (target + tracks[index].count * channels).update(from: source, count: taken * channels)
            tracks[index].count += taken
        }
        return frames - taken
    }

    /// Fills every track that ends before `position` with silence up to it (as far as there is room).
    mutating func fill(upTo position: Int64) {
        for index in tracks.indices {
            let missing = Int(max(0, min(Int64(capacity - tracks[index].count), position - end(of: index))))
            guard missing > 0, let base = tracks[index].samples.baseAddress else { continue }
            (base + tracks[index].count * SoundFormat.channels).update(repeating: 0,
                                                                       count: missing * SoundFormat.channels)
            tracks[index].count += missing
        }
    }

    /// Mixes as far as every track has sound, and no further than `limit` (the run's end), and
    /// hands the mix out in order; sound past `limit` is left unmixed.
    mutating func mix(upTo limit: Int64?,
                      emit: (UnsafeBufferPointer<Float>) throws(PodiumError) -> Void) throws(PodiumError) {
        guard var frames = tracks.map(\.count).min() else { return }
        if let limit { frames = Int(max(0, min(Int64(frames), limit - mixed))) }
        guard frames > 0 else { return }
        let channels = SoundFormat.channels
        let count = frames * channels
        if passesThrough {
            try emit(UnsafeBufferPointer(rebasing: tracks[0].samples[0..<count]))
        } else {
            let first = tracks[0]
            for index in 0..<count { output[index] = first.samples[index] * first.gain }
            for track in tracks.dropFirst() {
                for index in 0..<count { output[index] += track.samples[index] * track.gain }
            }
            for index in 0..<count { output[index] = min(1, max(-1, output[index])) }
            try emit(UnsafeBufferPointer(rebasing: output[0..<count]))
        }
        for index in tracks.indices {
            let left = tracks[index].count - frames
            if left > 0, let base = tracks[index].samples.baseAddress {
                base.update(from: base + count, count: left * channels)
            }
            tracks[index].count = left
        }
        mixed += Int64(frames)
    }
}
