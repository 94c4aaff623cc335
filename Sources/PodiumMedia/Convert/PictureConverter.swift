import CFFmpeg
public import PodiumCore
import Synchronization

/// A captured frame converted once to 4:2:0, read by every encoder of the run that wants its size:
/// the one of that size encodes it as it is, the smaller ones scale from it.
///
/// Its pixels are written only by `PictureConverter`, and only while no encoder holds it.
public final class YUVPicture: SharedPicture, @unchecked Sendable {
    // Unchecked: a pointer to C memory is not Sendable whatever is done with it. The converting
    // thread writes the pixels while the picture is free (no reader, and no reference that an
    // encoder kept); encoders only read them.
    private let owned: OwnedFrame
    var frame: UnsafeMutablePointer<AVFrame> { owned.pointer }
    public let size: PixelSize
    /// The captured frame the pixels hold; the converting thread's alone.
    fileprivate var heldSequence: UInt64?
    private let readers = Atomic<Int>(0)

    fileprivate init?(size: PixelSize, format: AVPixelFormat) {
        guard let owned = OwnedFrame() else { return nil }
        owned.pointer.pointee.format = format.rawValue
        owned.pointer.pointee.width = Int32(size.width)
        owned.pointer.pointee.height = Int32(size.height)
        owned.pointer.pointee.color_range = format == AV_PIX_FMT_YUVJ420P ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        guard av_frame_get_buffer(owned.pointer, 0) >= 0 else { return nil }
        // Every plane lies in the frame's first buffer.
        if let buffer = owned.pointer.pointee.buf.0 {
            UnsafeMutableRawPointer(buffer.pointee.data).makeResident(byteCount: Int(buffer.pointee.size))
        }
        self.owned = owned
        self.size = size
    }

    public func share(with count: Int) { readers.store(count, ordering: .releasing) }

    public func release() { readers.subtract(1, ordering: .releasing) }

    /// Free for the next frame: no encoder reads it, and none kept a reference to its pixels.
    fileprivate var isFree: Bool {
        readers.load(ordering: .acquiring) <= 0 && av_frame_is_writable(frame) != 0
    }
}

/// Converts captured BGRA frames to 4:2:0 once for every encoder, at the largest size any encoder
/// wants (the captured size, unless every encoding is smaller), and scales the result once to each
/// smaller size, each from the smallest larger picture (360p from 720p, not from the captured
/// 1080p: a fraction of the work). Each size has a small pool of pictures. A picture is brought up
/// to date by converting only the rows that changed since the frame it last held, when the frames
/// in between are known and the conversion does not scale; a picture that shows the content
/// already is left as it is.
///
/// Not thread-safe: made on the encode stage's thread and used there alone.
public final class PictureConverter: PictureMaking {
    /// Converts the captured size it was planned for (or, after the screen was resized, the new
    /// size unscaled) into level 0's pictures.
    private var converter: FrameConverter
    /// The captured size planned, which level 0 is scaled from.
    private let plannedSource: PixelSize
    /// The sizes it makes: level 0 (the largest) first, then the smaller ones, largest first.
    public let sizes: [PixelSize]
    private let format: AVPixelFormat
    private let filter: ScaleFilter
    private var pools: [[YUVPicture]]
    /// For each smaller size: the size it is scaled from, and how.
    private let sources: [Int]
    private let scalers: [YUVScaler?]
    /// The picture each size holds for the frame being converted.
    private var latest: [YUVPicture?]
    private let count: Int
    /// The changed rows of the frames seen lately, each against the frame before it: a ring of
    /// `count + 1` entries (a picture is at most that many frames behind), the oldest replaced.
    private var history: [(sequence: UInt64, rows: RowBands?)]
    private var historyNext = 0

    /// - Parameters:
    ///   - source: the captured size planned.
    ///   - sizes: the sizes the encoders want (any order; repeats are ignored); the largest is
    ///     level 0, converted (and scaled, if smaller) straight from the captured frame.
    ///   - count: pictures of each size: each encoder holds at most two (one waiting, one
    ///     encoding), and one is being made.
    ///   - fullRange: full-range pictures (`yuvj420p`, for MJPEG) rather than the usual limited range.
    public init(source: PixelSize, sizes targets: [PixelSize], count: Int, filter: ScaleFilter, fullRange: Bool = false)
        throws(PodiumError) {
        self.count = count
        self.filter = filter
        plannedSource = source
        format = fullRange ? AV_PIX_FMT_YUVJ420P : AV_PIX_FMT_YUV420P
        let sizes = Self.levels(of: targets.isEmpty ? [source] : targets)
        self.sizes = sizes
        converter = try FrameConverter(source: source, output: sizes[0], format: format, filter: filter)
        var sources = [0]
        var scalers: [YUVScaler?] = [nil]
        for (index, target) in sizes.enumerated().dropFirst() {
            // The smallest picture made before it that covers it.
            let from = (0..<index).last { sizes[$0].width >= target.width && sizes[$0].height >= target.height } ?? 0
            sources.append(from)
            scalers.append(try YUVScaler(source: sizes[from], output: target, filter: filter))
        }
        self.sources = sources
        self.scalers = scalers
        let format = format
        pools = try sizes.map { size throws(PodiumError) in
            try Self.pictures(size: size, format: format, count: count)
        }
        history = Array(repeating: (UInt64.max, nil), count: count + 1)
        latest = Array(repeating: nil, count: sizes.count)
    }

    /// The sizes a converter for encoders of `sizes` makes, level by level: the largest first,
    /// each once.
    public static func levels(of sizes: [PixelSize]) -> [PixelSize] {
        var levels: [PixelSize] = []
        for size in sizes.sorted(by: { $0.area > $1.area }) where !levels.contains(size) { levels.append(size) }
        return levels
    }

    /// Pictures a converter needs for `encoders` encoders: each holds up to two (one waiting, one
    /// encoding), one is being converted, and one more covers an encoder that still references its last.
    public static func pictureCount(encoders: Int) -> Int { 2 * encoders + 2 }

    public var levels: Int { sizes.count }

    private static func pictures(size: PixelSize, format: AVPixelFormat, count: Int) throws(PodiumError)
        -> [YUVPicture] {
        var pictures: [YUVPicture] = []
        for _ in 0..<count {
            guard let picture = YUVPicture(size: size, format: format) else {
                throw .software("cannot allocate a \(size) picture")
            }
            pictures.append(picture)
        }
        return pictures
    }

    /// Rows of the captured picture the last `convert` read: its height, the changed rows, or none.
    public private(set) var rowsConverted = 0

    /// Converts `frame` into a free picture of level 0.
    /// - Returns: the picture, or `nil` when every picture is still being read (the frame is dropped).
    public func convert(_ frame: CapturedFrame) throws(PodiumError) -> YUVPicture? {
        var index = 0
        while index < latest.count {
            latest[index] = nil
            index += 1
        }
        if frame.size != converter.source {
            // The captured size changed: pictures of the new size, unscaled (those being read go
            // when released). Encoders then scale from it themselves, fitting it into their own
            // size; back at the planned size, level 0 is made as planned again.
            let output = frame.size == plannedSource ? sizes[0] : frame.size
            converter = try FrameConverter(source: frame.size, output: output, format: format, filter: filter)
            pools[0] = try Self.pictures(size: output, format: format, count: count)
            forgetHistory()
        }
        history[historyNext] = (frame.sequence, frame.changedRows)
        historyNext = (historyNext + 1) % history.count
        guard let picture = Self.free(in: pools[0]) else { return nil }
        let rows = changedRows(since: picture.heldSequence, upTo: frame.sequence)
        if rows?.isEmpty == true {
            // It shows this content already: an idle repeat, a held last frame.
            rowsConverted = 0
        } else if let rows, converter.convertsRows {
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
    public func scaled(_ index: Int) -> (picture: YUVPicture, rescaled: Bool)? {
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
    private static func free(in pool: [YUVPicture]) -> YUVPicture? {
        var best: YUVPicture?
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
