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

/// Converts captured BGRA frames to 4:2:0 once for every encoder, into a small pool of pictures.
/// A picture is brought up to date by converting only the rows that changed since the frame it
/// last held, when the frames in between are known; otherwise whole.
///
/// Not thread-safe: confine to the converting thread.
public final class PictureConverter: @unchecked Sendable {
    // Unchecked: confined to the converting thread (see above); the branch that owns it is Sendable.
    private var converter: FrameConverter
    private var pool: [SharedPicture]
    private let count: Int
    /// The changed rows of the frames seen lately, each against the frame before it.
    private var history: [(sequence: UInt64, rows: RowBands?)] = []

    /// - Parameter count: pictures in the pool: each encoder holds at most two (one waiting, one
    ///   encoding), and one is being converted.
    public init(size: PixelSize, count: Int) throws(PodiumError) {
        self.count = count
        converter = try FrameConverter(source: size, output: size, format: AV_PIX_FMT_YUV420P, filter: .box)
        pool = try Self.pictures(size: size, count: count)
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

    /// Converts `frame` into a free picture of the pool.
    /// - Returns: the picture, or `nil` when every picture is still being read (the frame is dropped).
    public func convert(_ frame: CapturedFrame) throws(PodiumError) -> SharedPicture? {
        if frame.size != converter.source {
            // The captured size changed: pictures of the new size (those being read go when released).
            converter = try FrameConverter(source: frame.size, output: frame.size, format: AV_PIX_FMT_YUV420P,
                                           filter: .box)
            pool = try Self.pictures(size: frame.size, count: count)
            history = []
        }
        if history.count == count + 1 { history.removeFirst() }
        history.append((frame.sequence, frame.changedRows))
        guard let picture = pool.first(where: \.isFree) else { return nil }
        if let rows = changedRows(since: picture.heldSequence, upTo: frame.sequence) {
            converter.convert(frame, rows: rows, into: picture.frame)
        } else {
            converter.convert(frame, into: picture.frame)
        }
        picture.heldSequence = frame.sequence
        return picture
    }

    /// The rows that changed after frame `held` up to frame `target`, or `nil` when not known.
    private func changedRows(since held: UInt64?, upTo target: UInt64) -> RowBands? {
        guard let held, held < target, target - held <= UInt64(history.count) else { return nil }
        var rows = RowBands()
        for sequence in (held + 1)...target {
            guard let entry = history.first(where: { $0.sequence == sequence }), let changed = entry.rows else {
                return nil
            }
            rows.formUnion(changed)
        }
        return rows
    }
}
