public import Foundation

/// State behind a lock that threads can wait on until it changes: a `Mutex` with a condition
/// variable, which the standard library's `Mutex` lacks. The hand-offs between real-time threads
/// (`LatestSlot`, `BoundedQueue`) are built on it.
///
/// Thread-safe. The waiting calls block, so call them from dedicated threads, never from the
/// cooperative pool.
public final class ConditionLock<State: Sendable>: @unchecked Sendable {
    // Unchecked: `state` is read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var state: State

    public init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with the state locked; with `wake`, wakes one waiter after it.
    public func withLock<Result, Failure: Error>(
        wake: Wake = .none, _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        condition.lock()
        defer {
            switch wake {
            case .none: break
            case .one: condition.signal()
            case .all: condition.broadcast()
            }
            condition.unlock()
        }
        return try body(&state)
    }

    /// Whom a change wakes.
    public enum Wake: Sendable {
        case none, one, all
    }

    /// Waits until `isReady` holds for the state (or `deadline` passes), then runs `body` with the
    /// state still locked.
    /// - Parameter deadline: when to stop waiting; `body` then runs whatever the state.
    public func wait<Result>(until isReady: (State) -> Bool, deadline: Date? = nil,
                             _ body: (inout State) -> Result) -> Result {
        condition.lock()
        defer { condition.unlock() }
        while !isReady(state) {
            if let deadline {
                if !condition.wait(until: deadline) { break }
            } else {
                condition.wait()
            }
        }
        return body(&state)
    }
}
