/// The drop policy for encoded streams: once a packet of a stream is lost, every packet of that
/// stream up to its next keyframe would decode to garbage, so they are dropped too and the
/// stream resumes on a keyframe. Each stream is gated on its own (a lost video packet does not
/// silence the sound: every sound packet stands alone, as a keyframe).
public struct KeyframeGate: DropPolicy {
    /// A bit per stream id (below 64) that waits for its next keyframe.
    private var waiting: UInt64 = 0

    /// - Parameter waitingForKeyframe: start by dropping up to each stream's first keyframe.
    public init(waitingForKeyframe: Bool = false) {
        waiting = waitingForKeyframe ? ~0 : 0
    }

    public mutating func admits(_ packet: EncodedPacket, hasRoom: Bool) -> Bool {
        let bit: UInt64 = 1 << UInt64(packet.streamID & 63)
        if waiting & bit != 0 && !packet.isKeyframe { return false }
        if hasRoom {
            waiting &= ~bit
        } else {
            waiting |= bit
        }
        return hasRoom
    }
}
