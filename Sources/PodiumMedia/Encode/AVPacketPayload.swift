import CFFmpeg
import PodiumCore

/// The bytes of one encoded packet: a reference-counted `AVPacket`, shared read-only by every
/// output; each muxer takes its own reference to it, so the bytes are never copied.
final class AVPacketPayload: PacketPayload, @unchecked Sendable {
    // Unchecked: the packet is written once, when it is moved in, and only read after.
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

    var byteCount: Int { Int(packet.pointee.size) }
}
