public import PodiumCore
import Synchronization

/// A picture of a fake maker: shared and released as the real ones are, and never written.
public final class FakePicture: SharedPicture {
    public let level: Int
    private let readers = Atomic<Int>(0)

    init(level: Int) { self.level = level }

    public func share(with readers: Int) { self.readers.store(readers, ordering: .releasing) }
    public func release() { readers.subtract(1, ordering: .releasing) }
    var isFree: Bool { readers.load(ordering: .acquiring) <= 0 }
}

/// Makes pictures of `levels` sizes from small pools, converting nothing.
public final class FakePictureMaker: PictureMaking {
    public let levels: Int
    public private(set) var rowsConverted = 0
    private let pools: [[FakePicture]]

    public init(levels: Int, count: Int = 6) {
        self.levels = levels
        pools = (0..<levels).map { level in (0..<count).map { _ in FakePicture(level: level) } }
    }

    public func convert(_ frame: CapturedFrame) throws(PodiumError) -> FakePicture? {
        rowsConverted = frame.changedRows?.rowCount ?? frame.size.height
        return pools[0].first(where: \.isFree)
    }

    public func scaled(_ level: Int) -> (picture: FakePicture, rescaled: Bool)? {
        pools[level].first(where: \.isFree).map { ($0, true) }
    }
}

/// What a fake encoder did, readable from the test's thread: the slot time of each frame it
/// encoded and whether it was made a keyframe.
public final class EncoderLog: Sendable {
    private let frames = Mutex<[(slotTime: UInt64, keyframe: Bool)]>([])
    /// While closed, the encoder waits before each frame: a slow encoder, as slow as the test likes.
    private let gate = ConditionLock(true)

    public init() {}

    public var encoded: [(slotTime: UInt64, keyframe: Bool)] { frames.withLock { $0 } }
    public var count: Int { frames.withLock { $0.count } }
    public var keyframeTimes: [UInt64] { encoded.filter(\.keyframe).map(\.slotTime) }

    func record(_ slotTime: UInt64, keyframe: Bool) { frames.withLock { $0.append((slotTime, keyframe)) } }

    /// Makes the encoder wait at its next frame until `open()`.
    public func close() { gate.withLock(wake: .all) { $0 = false } }
    public func open() { gate.withLock(wake: .all) { $0 = true } }
    func waitUntilOpen() { gate.wait(until: { $0 }) { _ in } }
}

/// An encoder that compresses nothing: each frame becomes a 100-byte packet at its slot time in
/// microseconds, a keyframe when asked for (and the first).
public final class FakeEncoder: PictureEncoding {
    public let stream: StreamDescription
    private let log: EncoderLog
    private var taken = false
    private var first = true
    private let payload = ArrayPayload(count: 100)

    public init(stream id: Int, size: PixelSize = PixelSize(width: 4, height: 4), fps: Int = 30, log: EncoderLog) {
        let video = StreamDescription.Video(codec: .h264, size: size, framesPerSecond: fps,
                                            colors: ColorTags(range: .limited))
        stream = StreamDescription(id: id, video: video, timeScale: 1_000_000)
        self.log = log
    }

    public var summary: String { "h264 with a fake encoder" }
    public var label: String { "h264 fake" }

    public func take(_ picture: FakePicture) throws(PodiumError) -> Bool {
        taken = true
        return false
    }

    public func encode(slotTime: UInt64, keyframe: Bool, emit: (EncodedPacket) -> Void) throws(PodiumError) {
        log.waitUntilOpen()
        guard taken else { throw .software("encode before take") }
        let isKeyframe = keyframe || first
        first = false
        log.record(slotTime, keyframe: isKeyframe)
        emit(EncodedPacket(streamID: stream.id, presentationTime: stream.ticks(nanoseconds: slotTime),
                           isKeyframe: isKeyframe, payload: payload))
    }

    public func flush(emit: (EncodedPacket) -> Void) throws(PodiumError) {}
}
