/// Where packets go: a recording, a network output, a client of a listener.
///
/// Thread-safe: `offer` is called on the encode thread, `close` from anywhere.
public protocol PacketSink: AnyObject, Sendable {
    /// Whether the user named this output (`--to`): the run ends when every required output has
    /// failed. A guest (a client that joined a listener) comes and goes without ending anything.
    var isRequired: Bool { get }
    /// Takes `packet` or drops it by the sink's own drop policy; never blocks.
    func offer(_ packet: EncodedPacket)
    /// No more packets: the sink writes what it holds and finishes.
    func close()
}
