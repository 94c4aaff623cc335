/// The bytes of one encoded packet, owned by whoever made them (PodiumMedia backs it with a
/// reference-counted `AVPacket`), shared read-only by every output: passing a packet on copies a
/// reference, never the bytes.
public protocol PacketPayload: AnyObject, Sendable {
    var byteCount: Int { get }
}

/// One compressed picture of one stream.
public struct EncodedPacket: Sendable {
    /// The `StreamDescription.id` of its stream.
    public var streamID: Int
    /// When to show it, in units of `1 / timeScale` seconds of its stream.
    public var presentationTime: Int64
    /// Whether decoding can start here.
    public var isKeyframe: Bool
    public var payload: any PacketPayload

    public init(streamID: Int, presentationTime: Int64, isKeyframe: Bool, payload: any PacketPayload) {
        self.streamID = streamID
        self.presentationTime = presentationTime
        self.isKeyframe = isKeyframe
        self.payload = payload
    }

    public var size: Int { payload.byteCount }
}
