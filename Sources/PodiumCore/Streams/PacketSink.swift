/// Where packets go: a recording, a network output, a client of a listener, a viewer's feed.
///
/// Thread-safe: `offer` is called on the encoders' threads (several, when a program holds several
/// streams), never waits, and applies the sink's own drop policy.
public protocol PacketSink: AnyObject, Sendable {
    /// Takes `packet` or drops it by the sink's own drop policy; never blocks.
    func offer(_ packet: EncodedPacket)
}

/// The streams one output writes: a picture rendition, and the sound with it once there is one.
/// An output subscribes to its program on the run's `StreamHub`.
public struct Program: Hashable, Sendable, CustomStringConvertible {
    /// The ids of its streams, the picture first.
    public var streams: [Int]

    public init(streams: [Int]) {
        precondition(streams.allSatisfy { (0..<64).contains($0) }, "stream ids run from 0 to 63")
        self.streams = streams
    }

    /// A bit per stream id.
    var mask: UInt64 { streams.reduce(0) { $0 | 1 << UInt64($1) } }

    public var description: String { "streams " + streams.map(String.init).joined(separator: "+") }
}
