/// A converted picture shared by every encoder that reads it; it goes back to its maker's pool
/// once each of them released it.
public protocol SharedPicture: AnyObject, Sendable {
    /// Declares how many encoders read it; each calls `release()` once.
    func share(with readers: Int)
    /// One encoder is done with it.
    func release()
}

/// Makes, from each captured frame, the pictures every encoder reads: converted once at the
/// largest size an encoder wants, then scaled once to each smaller size (each from the smallest
/// larger picture), into small pools of pictures. libyuv and libswscale behind it, or a fake.
///
/// Made on the encode stage's thread and used there alone.
public protocol PictureMaking: AnyObject, SendableMetatype {
    associatedtype Picture: SharedPicture
    /// How many sizes it makes: the largest first (level 0), then the smaller ones.
    var levels: Int { get }
    /// Rows of the captured picture the last `convert` read: its height, the changed rows, or none.
    var rowsConverted: Int { get }
    /// Converts `frame` into a free picture of level 0.
    /// - Returns: the picture, or `nil` when every picture is still being read (the frame is dropped).
    func convert(_ frame: CapturedFrame) throws(PodiumError) -> Picture?
    /// The frame just converted at `level` (1 or more), and whether it had to be scaled (not when
    /// the picture held this content already); `nil` when it cannot be made (none free, or the
    /// captured size changed): its encoders then take level 0's.
    func scaled(_ level: Int) -> (picture: Picture, rescaled: Bool)?
}

/// One encoder: takes the shared picture of its size (or scales another into its own), compresses
/// it, and hands out the packets. libavcodec behind it, or a fake.
///
/// Made on its rendition's thread and used there alone.
public protocol PictureEncoding: AnyObject, SendableMetatype {
    associatedtype Picture: SharedPicture
    /// What it produces, for the outputs (its id is the stream id it was opened with).
    var stream: StreamDescription { get }
    /// A line for the start message: `h264 with libx264 (yuv420p 1920x1080, constant quality, …)`.
    var summary: String { get }
    /// A few words for a heading: `h264 libx264 ultrafast`.
    var label: String { get }
    /// Prepares `picture` for `encode`: one of the encoder's size is referenced as it is, another
    /// is scaled into the encoder's own.
    /// - Returns: whether it was scaled.
    func take(_ picture: Picture) throws(PodiumError) -> Bool
    /// Compresses the picture `take` prepared, shown at `slotTime` (nanoseconds since the run's
    /// first slot: its packets' `presentationTime` is that in the stream's time scale).
    /// - Parameter keyframe: force an intra picture.
    func encode(slotTime: UInt64, keyframe: Bool, emit: (EncodedPacket) -> Void) throws(PodiumError)
    /// Ends the stream and hands out the packets it still held.
    func flush(emit: (EncodedPacket) -> Void) throws(PodiumError)
    /// Takes what the run asks of its encoders now (`tuning`): from the next frame on, without a
    /// new stream.
    /// - Throws: what it cannot change while it runs (it goes on as it was).
    func retune(_ tuning: EncoderTuning) throws(PodiumError)
    /// What it has to tell once, if anything: the GPU's encoder not taken, or left for software.
    func takeNotice() -> EncoderNotice?
}

/// What an encoder tells of itself once.
public struct EncoderNotice: Sendable, Equatable {
    /// The GPU's encoder and the software one that took over while the run went; `nil` when the
    /// notice is of the encoder chosen at the start.
    public var fallback: (from: String, to: String)?
    /// Why, in a line.
    public var message: String

    public init(_ message: String, fallback: (from: String, to: String)? = nil) {
        self.message = message
        self.fallback = fallback
    }

    public static func == (left: EncoderNotice, right: EncoderNotice) -> Bool {
        left.message == right.message && left.fallback?.from == right.fallback?.from
            && left.fallback?.to == right.fallback?.to
    }
}

extension PictureEncoding {
    /// An encoder that has nothing to tell.
    public func takeNotice() -> EncoderNotice? { nil }

    /// An encoder that is told nothing: its packets' times follow any frame rate as they are.
    public func retune(_ tuning: EncoderTuning) throws(PodiumError) {}
}
