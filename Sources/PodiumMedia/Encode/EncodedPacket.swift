import CFFmpeg

/// One compressed picture from the encoder, shared read-only by every sink.
///
/// Owns a reference-counted `AVPacket`; each sink takes its own reference to hand to its muxer.
public final class EncodedPacket: @unchecked Sendable {
    let packet: UnsafeMutablePointer<AVPacket>

    /// Takes over the contents of `source`, leaving it blank for the next `avcodec_receive_packet`.
    init(movingFrom source: UnsafeMutablePointer<AVPacket>) {
        packet = av_packet_alloc()
        av_packet_move_ref(packet, source)
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&pointer)
    }

    public var size: Int { Int(packet.pointee.size) }
    public var isKeyframe: Bool { packet.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    /// Presentation time in the encoder's time base (microseconds).
    public var presentationTime: Int64 { packet.pointee.pts }
}
