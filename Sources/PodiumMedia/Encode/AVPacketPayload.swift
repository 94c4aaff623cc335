import CFFmpeg
import PodiumCore

/// The bytes of one encoded packet: a reference-counted `AVPacket`, shared read-only by every
/// output; each muxer takes its own reference to it, so the bytes are never copied.
final class AVPacketPayload: PacketPayload, @unchecked Sendable {
    // Unchecked: the packet is written once, when it is moved in, and only read after; a pointer
    // to C memory is not Sendable whatever is done with it.
    private let owned: OwnedPacket
    var packet: UnsafeMutablePointer<AVPacket> { owned.pointer }

    /// Takes over the contents of `source`, leaving it blank for the next `avcodec_receive_packet`;
    /// `nil` when out of memory.
    init?(movingFrom source: UnsafeMutablePointer<AVPacket>) {
        guard let owned = OwnedPacket() else { return nil }
        av_packet_move_ref(owned.pointer, source)
        self.owned = owned
    }

    /// A packet of `count` bytes read back from `file` at `offset` (a replay's spilled packet),
    /// shown at `presentationTime` (decoded then too: no picture is reordered); `nil` when out of
    /// memory or the read failed.
    init?(reading count: Int, at offset: Int64, from file: SpillFile, presentationTime: Int64, duration: Int64,
          isKeyframe: Bool) {
        guard let owned = OwnedPacket(), av_new_packet(owned.pointer, Int32(count)) >= 0,
              file.read(into: UnsafeMutableRawBufferPointer(start: owned.pointer.pointee.data, count: count),
                        at: offset)
        else { return nil }
        owned.pointer.pointee.pts = presentationTime
        owned.pointer.pointee.dts = presentationTime
        owned.pointer.pointee.duration = duration
        if isKeyframe { owned.pointer.pointee.flags |= AV_PKT_FLAG_KEY }
        self.owned = owned
    }

    var byteCount: Int { Int(packet.pointee.size) }

    func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(start: packet.pointee.data, count: byteCount))
    }
}
