/// The bytes of one encoded packet, owned by whoever made them (PodiumMedia backs it with a
/// reference-counted `AVPacket`), shared read-only by every output: passing a packet on copies a
/// reference, never the bytes.
public protocol PacketPayload: AnyObject, Sendable {
    var byteCount: Int { get }
    /// Calls `body` with the packet's bytes, valid for the call only.
    func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result
}

/// One compressed picture (or block of sound) of one stream.
public struct EncodedPacket: Sendable {
    /// The `StreamDescription.id` of its stream.
    public var streamID: Int
    /// When to show it, in units of `1 / timeScale` seconds of its stream, counted from the run's
    /// first slot: on the frame-rate grid for a picture.
    public var presentationTime: Int64
    /// How long it shows, in the same units: one frame interval for a picture (the next may come
    /// later, on a still screen); 0 when not known.
    public var duration: Int64
    /// Whether decoding can start here.
    public var isKeyframe: Bool
    public var payload: any PacketPayload
    /// When its frame was grabbed, in `MonotonicClock` nanoseconds, for latency figures; set as
    /// it is published, 0 before.
    public var captureTime: UInt64

    public init(streamID: Int, presentationTime: Int64, duration: Int64 = 0, isKeyframe: Bool,
                payload: any PacketPayload, captureTime: UInt64 = 0) {
        self.streamID = streamID
        self.presentationTime = presentationTime
        self.duration = duration
        self.isKeyframe = isKeyframe
        self.payload = payload
        self.captureTime = captureTime
    }

    public var size: Int { payload.byteCount }
}

/// Packet bytes held in a Swift array: packets made without an encoder (tests, fixtures).
public final class ArrayPayload: PacketPayload {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// `count` zero bytes.
    public convenience init(count: Int) { self.init([UInt8](repeating: 0, count: count)) }

    public var byteCount: Int { bytes.count }

    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        // `Array.withUnsafeBytes` rethrows untyped; the closure keeps the typed error.
        let result: Swift.Result<Result, Failure> = bytes.withUnsafeBytes { buffer in
            do throws(Failure) { return .success(try body(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
