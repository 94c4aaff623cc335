/// Where packets go: a recording, a network output, a client of a listener.
///
/// Thread-safe: `start` is called on the thread that subscribes the sink (its own), `offer` on
/// the encode thread, `close` from anywhere.
public protocol PacketSink: AnyObject, Sendable {
    /// Whether the user named this output (`--to`): the run ends when every required output has
    /// failed. A guest (a client that joined a listener) comes and goes without ending anything.
    var isRequired: Bool { get }
    /// Gets ready for packets of `streams` (opens the destination, writes a header); called by
    /// `PacketHub.subscribe` before the sink's first packet, and again after each reconnection.
    /// - Throws: when the sink cannot take the streams; it is then not subscribed.
    func start(_ streams: [StreamDescription]) throws(PodiumError)
    /// Takes `packet` or drops it by the sink's own drop policy; never blocks.
    func offer(_ packet: EncodedPacket)
    /// No more packets: the sink writes what it holds and finishes.
    func close()
}
