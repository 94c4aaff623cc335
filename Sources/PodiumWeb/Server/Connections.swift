import Foundation
import HummingbirdCore
import Logging
import NIOCore
import PodiumCore
import Synchronization

/// Every connection the server holds, bounded: in all, per peer address, and in the time a peer
/// may take to send its first request head. Without bounds, idle connections (or ones that send a
/// byte a second) would hold the server's descriptors until none is left for a viewer, and a
/// server out of descriptors spins on its accepts. The end of the run closes those a browser keeps
/// open: an idle connection it opened ahead of need would otherwise keep Podium from ending.
final class Connections: Sendable {
    private struct Entry {
        let channel: any Channel
        let address: String
        let opened: UInt64
        /// Whether its first request head came: it is in use, not a peer holding a slot.
        var engaged = false
    }
    private struct Table {
        var open: [ObjectIdentifier: Entry] = [:]
        var perAddress: [String: Int] = [:]
    }
    private let table = Mutex(Table())
    private let clock = MonotonicClock()
    /// Connections held at once; past it, the oldest that has sent no request yet makes room.
    let capacity: Int
    /// Connections one address holds at once: a browser opens six to a server; viewers behind one
    /// address (a NAT, a proxy) a stream each.
    let perAddress: Int
    /// How long a connection may take to send its first request head (a TLS handshake included).
    let headDeadline: TimeAmount

    init(capacity: Int = Connections.capacityForDescriptors(), perAddress: Int = 16,
         headDeadline: TimeAmount = .seconds(5)) {
        self.capacity = capacity
        self.perAddress = perAddress
        self.headDeadline = headDeadline
    }

    /// Half of what the process may open beyond the 96 its run needs, from 32 to 512: the
    /// connections can never take the descriptors capture, files and encoders need.
    static func capacityForDescriptors() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 128 }
        return min(512, max(32, (Int(clamping: limit.rlim_cur) - 96) / 2))
    }

    /// Enters `channel`, from `address`, or says it is one too many for its address. To make room
    /// in all, the oldest connection that has sent no request is closed.
    func admit(_ channel: any Channel, from address: String) -> Bool {
        let key = ObjectIdentifier(channel)
        let now = clock.now()
        let outcome: (admitted: Bool, evicted: (any Channel)?) = table.withLock { table in
            guard table.perAddress[address, default: 0] < perAddress else { return (false, nil) }
            var evicted: (any Channel)?
            if table.open.count >= capacity {
                let idle = table.open.filter { !$0.value.engaged }
                guard let oldest = idle.min(by: { $0.value.opened < $1.value.opened }) else { return (false, nil) }
                evicted = oldest.value.channel
                Self.remove(oldest.key, from: &table)
            }
            table.open[key] = Entry(channel: channel, address: address, opened: now)
            table.perAddress[address, default: 0] += 1
            return (true, evicted)
        }
        outcome.evicted?.close(promise: nil)
        guard outcome.admitted else { return false }
        channel.closeFuture.whenComplete { [self] _ in table.withLock { Self.remove(key, from: &$0) } }
        return true
    }

    /// `channel` sent its first request head: it is no longer the first to make room.
    func engage(_ channel: any Channel) {
        table.withLock { $0.open[ObjectIdentifier(channel)]?.engaged = true }
    }

    private static func remove(_ key: ObjectIdentifier, from table: inout Table) {
        guard let entry = table.open.removeValue(forKey: key) else { return }
        let left = table.perAddress[entry.address, default: 1] - 1
        table.perAddress[entry.address] = left > 0 ? left : nil
    }

    /// Closes every connection still open.
    func closeAll() {
        for entry in table.withLock({ Array($0.open.values) }) { entry.channel.close(promise: nil) }
    }

    /// How many connections are open, and how many of them from `address`.
    func count(from address: String? = nil) -> Int {
        table.withLock { table in address.map { table.perAddress[$0, default: 0] } ?? table.open.count }
    }
}

/// A server's child channel that enters each connection in `connections` (or closes it, one too
/// many) and gives it `headDeadline` to send its first request head, before `base` sets it up.
struct TrackedChannel<Base: ServerChildChannel>: ServerChildChannel {
    let base: Base
    let connections: Connections

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Base.Value> {
        guard connections.admit(channel, from: ViewerServer.address(channel.remoteAddress)) else {
            return channel.close().flatMapThrowing { throw ChannelError.inputClosed }
        }
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
                RequestHeadDeadline(deadline: connections.headDeadline) { [connections] in
                    connections.engage(channel)
                })
        }.flatMap { base.setup(channel: channel, logger: logger) }
    }

    func handle(value: Base.Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Closes its connection unless a whole request head (up to its blank line) arrives within
/// `deadline`; then it steps aside. Later requests are the HTTP handlers' to time.
final class RequestHeadDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private let deadline: TimeAmount
    private let arrived: () -> Void
    private var timer: Scheduled<Void>?
    /// The last four bytes read, for a blank line split across reads.
    private var tail: UInt32 = 0

    init(deadline: TimeAmount, arrived: @escaping () -> Void) {
        self.deadline = deadline
        self.arrived = arrived
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: deadline) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        let ended = bytes.readableBytesView.contains { byte in
            tail = tail << 8 | UInt32(byte)
            return tail == 0x0D0A_0D0A
        }
        context.fireChannelRead(data)
        guard ended else { return }
        arrived()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
