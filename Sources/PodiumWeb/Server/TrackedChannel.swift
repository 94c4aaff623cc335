import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// Every connection the server holds, so that the end of the run can close those a browser keeps
/// open: an idle connection it opened ahead of need (with no request yet, no timeout applies to
/// it) would otherwise keep the server, and Podium, from ending.
final class Connections: Sendable {
    private let open = Mutex<[ObjectIdentifier: any Channel]>([:])

    func add(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        open.withLock { $0[key] = channel }
        channel.closeFuture.whenComplete { [self] _ in _ = open.withLock { $0.removeValue(forKey: key) } }
    }

    /// Closes every connection still open.
    func closeAll() {
        for channel in open.withLock({ Array($0.values) }) { channel.close(promise: nil) }
    }
}

/// A server's child channel that enters each connection in `connections` before `base` sets it up.
struct TrackedChannel<Base: ServerChildChannel>: ServerChildChannel {
    let base: Base
    let connections: Connections

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Base.Value> {
        connections.add(channel)
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Base.Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
