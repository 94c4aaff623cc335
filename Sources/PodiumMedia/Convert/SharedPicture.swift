import CFFmpeg
public import PodiumCore
import Synchronization

/// A captured frame converted once to 4:2:0 at the captured size, read by every encoder of the
/// run: the one at that size encodes it as it is, the smaller ones scale from it.
///
/// Its pixels are written only by `PictureConverter`, and only while no encoder holds it.
public final class SharedPicture: @unchecked Sendable {
    // Unchecked: a pointer to C memory is not Sendable whatever is done with it. The converting
    // thread writes the pixels while the picture is free (no reader, and no reference that an
    // encoder kept); encoders only read them.
    private let owned: OwnedFrame
    var frame: UnsafeMutablePointer<AVFrame> { owned.pointer }
    public let size: PixelSize
    /// The captured frame the pixels hold; the converting thread's alone.
    fileprivate var heldSequence: UInt64?
    private let readers = Atomic<Int>(0)

    fileprivate init?(size: PixelSize, format: AVPixelFormat, range: AVColorRange) {
        guard let owned = OwnedFrame() else { return nil }
        owned.pointer.pointee.format = format.rawValue
        owned.pointer.pointee.width = Int32(size.width)
        owned.pointer.pointee.height = Int32(size.height)
        owned.pointer.pointee.color_range = range
        guard av_frame_get_buffer(owned.pointer, 0) >= 0 else { return nil }
        self.owned = owned
        self.size = size
    }

    /// Declares how many encoders read it; each calls `release()` once.
    public func share(with count: Int) { readers.store(count, ordering: .releasing) }

    /// One encoder is done with it.
    public func release() { readers.subtract(1, ordering: .releasing) }

    /// Free for the next frame: no encoder reads it, and none kept a reference to its pixels.
    fileprivate var isFree: Bool {
        readers.load(ordering: .acquiring) <= 0 && av_frame_is_writable(frame) != 0
    }
}

/// A converted picture on its way to the encoders, with what they need to know about it.
public struct ConvertedFrame: Sendable {
    public var picture: SharedPicture
    public var captureTime: UInt64
    /// The grab time of the run's first frame: packet times count from it, in every rendition.
    public var origin: UInt64
    public var sequence: UInt64
    /// Whether every encoder should make this a keyframe: the run's one keyframe schedule, so the
    /// renditions' segments start at the same capture times.
    public var keyframe: Bool

    public init(picture: SharedPicture, captureTime: UInt64, origin: UInt64, sequence: UInt64, keyframe: Bool) {
        self.picture = picture
        self.captureTime = captureTime
        self.origin = origin
        self.sequence = sequence
        self.keyframe = keyframe
    }
}

/// Converts captured BGRA frames to 4:2:0 once for every encoder, and scales the result once to
/// each smaller size an encoder wants, each from the smallest larger picture (360p from 720p, not
/// from the captured 1080p: a fraction of the work). Each size has a small pool of pictures. The
/// captured-size picture is brought up to date by converting only the rows that changed since the
/// frame it last held, when the frames in between are known; otherwise whole.
///
/// Not thread-safe: confine to the converting thread.
public final class PictureConverter: @unchecked Sendable {
    // Unchecked: confined to the converting thread (see above); the branch that owns it is Sendable.
    private var converter: FrameConverter
    /// The sizes it makes: the captured size first, then the smaller ones, largest first.
    public let sizes: [PixelSize]
    private var pools: [[SharedPicture]]
    /// For each smaller size: the size it is scaled from, and how.
    private let sources: [Int]
    private let scalers: [YUVScaler?]
    /// The picture each size holds for the frame being converted.
    private var latest: [SharedPicture?]
    private let count: Int
    /// The changed rows of the frames seen lately, each against the frame before it: a ring of
    /// `count + 1` entries (a picture is at most that many frames behind), the oldest replaced.
    private var history: [(sequence: UInt64, rows: RowBands?)]
    private var historyNext = 0

    /// - Parameters:
    ///   - size: the captured size.
    ///   - targets: the other sizes to make (any order; the captured size and repeats are ignored).
    ///   - count: pictures of each size: each encoder holds at most two (one waiting, one
    ///     encoding), and one is being made.
    public init(size: PixelSize, scaledTo targets: [PixelSize], count: Int, filter: ScaleFilter) throws(PodiumError) {
        self.count = count
        converter = try FrameConverter(source: size, output: size, format: AV_PIX_FMT_YUV420P, filter: .box)
        var sizes = [size]
        for candidate in targets.sorted(by: { $0.area > $1.area }) where !sizes.contains(candidate) {
            sizes.append(candidate)
        }
        self.sizes = sizes
        var sources = [0]
        var scalers: [YUVScaler?] = [nil]
        for (index, target) in sizes.enumerated().dropFirst() {
            // The smallest picture made before it that covers it.
            let source = (0..<index).last { sizes[$0].width >= target.width && sizes[$0].height >= target.height } ?? 0
            sources.append(source)
            scalers.append(try YUVScaler(source: sizes[source], output: target, filter: filter))
        }
        self.sources = sources
        self.scalers = scalers
        pools = try sizes.map { size throws(PodiumError) in try Self.pictures(size: size, count: count) }
        history = Array(repeating: (UInt64.max, nil), count: count + 1)
        latest = Array(repeating: nil, count: sizes.count)
    }

    private static func pictures(size: PixelSize, count: Int) throws(PodiumError) -> [SharedPicture] {
        var pictures: [SharedPicture] = []
        for _ in 0..<count {
            guard let picture = SharedPicture(size: size, format: AV_PIX_FMT_YUV420P, range: AVCOL_RANGE_MPEG) else {
                throw .software("cannot allocate a \(size) picture")
            }
            pictures.append(picture)
        }
        return pictures
    }

    /// Rows of the captured picture the last `convert` read: its height, or the changed rows.
    public private(set) var rowsConverted = 0

    /// Converts `frame` into a free picture of the captured size.
    /// - Returns: the picture, or `nil` when every picture is still being read (the frame is dropped).
    public func convert(_ frame: CapturedFrame) throws(PodiumError) -> SharedPicture? {
        var index = 0
        while index < latest.count {
            latest[index] = nil
            index += 1
        }
        if frame.size != converter.source {
            // The captured size changed: pictures of the new size (those being read go when released).
            // Encoders then scale from it themselves, fitting it into their own size.
            converter = try FrameConverter(source: frame.size, output: frame.size, format: AV_PIX_FMT_YUV420P,
                                           filter: .box)
            pools[0] = try Self.pictures(size: frame.size, count: count)
            forgetHistory()
        }
        history[historyNext] = (frame.sequence, frame.changedRows)
        historyNext = (historyNext + 1) % history.count
        guard let picture = Self.free(in: pools[0]) else { return nil }
        if let rows = changedRows(since: picture.heldSequence, upTo: frame.sequence) {
            converter.convert(frame, rows: rows, into: picture.frame)
            rowsConverted = rows.rowCount
        } else {
            converter.convert(frame, into: picture.frame)
            rowsConverted = frame.size.height
        }
        picture.heldSequence = frame.sequence
        latest[0] = picture
        return picture
    }

    /// Scales the frame just converted to `sizes[index]` (1 or more), from the smallest picture
    /// made for it that covers that size.
    ///
    /// The corresponding C function is libyuv's `I420Scale` (or `sws_scale`).
    /// - Returns: the picture and whether it had to be scaled (not when it already showed this
    ///   content), or `nil` when there is none to scale from (the captured size changed) or none
    ///   free; its encoders then take the captured-size picture.
    public func scaled(_ index: Int) -> (picture: SharedPicture, rescaled: Bool)? {
        guard index > 0, index < sizes.count, let source = latest[sources[index]], source.size == sizes[sources[index]],
              let scaler = scalers[index], let picture = Self.free(in: pools[index]),
              let sequence = source.heldSequence else { return nil }
        // A picture that already shows this content (nothing changed since: an idle repeat, a
        // cursor outside the picture) is not scaled again.
        let current = picture.heldSequence == sequence
            || changedRows(since: picture.heldSequence, upTo: sequence)?.isEmpty == true
        if !current { scaler.scale(source.frame, into: picture.frame, at: (0, 0)) }
        picture.heldSequence = sequence
        latest[index] = picture
        return (picture, !current)
    }

    // The loops below are plain `while` loops: an unoptimized build allocates to iterate a range
    // or call a closure, and these run for every frame.

    private func forgetHistory() {
        var index = 0
        while index < history.count {
            history[index] = (UInt64.max, nil)
            index += 1
        }
    }

    /// The picture of `pool` that nobody reads and that holds the latest frame (the fewest rows to redo).
    private static func free(in pool: [SharedPicture]) -> SharedPicture? {
        var best: SharedPicture?
        var index = 0
        while index < pool.count {
            let picture = pool[index]
            if picture.isFree && (best == nil || (picture.heldSequence ?? 0) > (best?.heldSequence ?? 0)) {
                best = picture
            }
            index += 1
        }
        return best
    }

    /// The rows that changed after frame `held` up to frame `target`, or `nil` when not known.
    private func changedRows(since held: UInt64?, upTo target: UInt64) -> RowBands? {
        guard let held, held < target, target - held <= UInt64(history.count) else { return nil }
        var rows = RowBands()
        var sequence = held + 1
        while sequence <= target {
            var index = 0
            while index < history.count && history[index].sequence != sequence { index += 1 }
            guard index < history.count, let changed = history[index].rows else { return nil }
            rows.formUnion(changed)
            sequence += 1
        }
        return rows
    }
}
