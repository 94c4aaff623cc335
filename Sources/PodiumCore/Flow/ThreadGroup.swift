public import Foundation

/// The threads of one part of a run (its stages, its outputs, a listener's clients): each named,
/// each counted until it ends, so the part can wait for all of them from async code without
/// holding a thread of the cooperative pool.
public final class ThreadGroup: Sendable {
    private let group = DispatchGroup()

    public init() {}

    /// Runs `body` on a new thread named `name` (as `top` and `ps -L` show it), counted until it returns.
    public func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread.detachNamed(name) { [group] in
            body()
            group.leave()
        }
    }

    /// Waits until every thread spawned so far has ended.
    public func wait() async {
        await withCheckedContinuation { continuation in
            group.notify(queue: .global()) { continuation.resume() }
        }
    }

    /// Waits up to `timeout`; returns whether every thread ended.
    public func wait(timeout: Duration) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [group] in
                let result = group.wait(timeout: .now() + .nanoseconds(Int(timeout.nanoseconds)))
                continuation.resume(returning: result == .success)
            }
        }
    }

    /// Blocks the calling thread (a dedicated one) until every thread spawned so far has ended.
    public func waitBlocking() {
        group.wait()
    }
}

/// Runs blocking `body` (an X connect, an encoder open, waiting for Xvfb) on a thread of its own
/// and returns what it returns, so no thread of the cooperative pool waits on it.
public func onOwnThread<Value: Sendable, Failure: Error>(
    _ name: String, _ body: @escaping @Sendable () throws(Failure) -> Value
) async throws(Failure) -> Value {
    let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
        Thread.detachNamed(name) {
            do throws(Failure) {
                continuation.resume(returning: .success(try body()))
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
    }
    return try result.get()
}

public extension Thread {
    /// Starts `body` on a new thread that the system knows by `name` (as `top -H` and `ps -L`
    /// show it). Foundation on Linux gives the system a thread's name only when the thread sets
    /// it itself; named from outside, it would carry its creator's (`com.apple.root.default-qos`).
    static func detachNamed(_ name: String, _ body: @escaping @Sendable () -> Void) {
        Thread {
            Thread.current.name = name
            body()
        }.start()
    }
}

/// Counts the parts that must be ready before a run goes on (a source that opened its display,
/// an encoder that opened), and keeps the first failure among them. Parts report from their own
/// threads; the run waits without blocking the cooperative pool, a dedicated thread may block.
public final class ReadyLatch: Sendable {
    private struct State: Sendable {
        var remaining: Int
        var failure: PodiumError?
        var waiters: [CheckedContinuation<PodiumError?, Never>] = []
    }
    private let state: ConditionLock<State>

    public init(count: Int) {
        state = ConditionLock(State(remaining: count))
    }

    /// One part is ready, or could not be made ready (`error`).
    public func report(_ error: PodiumError?) {
        let (waiters, failure) = state.withLock(wake: .all) { state in
            state.remaining -= 1
            state.failure = state.failure ?? error
            guard state.remaining <= 0 else { return ([CheckedContinuation<PodiumError?, Never>](), PodiumError?.none) }
            defer { state.waiters = [] }
            return (state.waiters, state.failure)
        }
        waiters.forEach { $0.resume(returning: failure) }
    }

    /// Waits until every part reported; the first failure, or `nil`.
    public func wait() async -> PodiumError? {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> PodiumError?? in
                guard state.remaining <= 0 else {
                    state.waiters.append(continuation)
                    return nil
                }
                return .some(state.failure)
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    /// Blocks the calling thread (a dedicated one) until every part reported; the first failure.
    public func waitBlocking() -> PodiumError? {
        state.wait(until: { $0.remaining <= 0 }) { $0.failure }
    }
}
