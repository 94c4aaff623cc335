import Foundation

/// A first-in first-out queue with a fixed capacity between producers that must never wait and
/// one consumer thread. What happens to an element when the queue is full is the queue's named
/// drop policy (`DropPolicy`): the plain one refuses it, `KeyframeGate` refuses the packets
/// after it up to the stream's next keyframe.
///
/// Thread-safe. `pop()` blocks, so call it from a dedicated thread, never from the cooperative pool.
public final class BoundedQueue<Policy: DropPolicy>: Sendable {
    public typealias Element = Policy.Element

    /// What happened to an element offered with `push`.
    public enum PushResult: Sendable, Equatable {
        case enqueued
        /// Refused by the drop policy: the queue was full, or the element depends on one that was.
        case dropped
        case closed
    }

    private struct State: Sendable {
        var ring: [Element?]
        var head = 0
        var count = 0
        var closed = false
        var policy: Policy
    }

    public let capacity: Int
    private let state: ConditionLock<State>

    public init(capacity: Int, policy: Policy) {
        precondition(capacity > 0, "a queue needs room for at least one element")
        self.capacity = capacity
        state = ConditionLock(State(ring: Array(repeating: nil, count: capacity), policy: policy))
    }

    /// Appends `element` if the queue is open and its drop policy admits it; never blocks.
    public func push(_ element: Element) -> PushResult {
        state.withLock(wake: .one) { state in
            if state.closed { return .closed }
            guard state.policy.admits(element, hasRoom: state.count < capacity) else { return .dropped }
            state.ring[(state.head + state.count) % capacity] = element
            state.count += 1
            return .enqueued
        }
    }

    /// Waits for the oldest element; `nil` once the queue is closed and drained.
    public func pop() -> Element? {
        state.wait(until: { $0.count > 0 || $0.closed }) { state in
            guard state.count > 0 else { return nil }
            defer {
                state.ring[state.head] = nil
                state.head = (state.head + 1) % capacity
                state.count -= 1
            }
            return state.ring[state.head]
        }
    }

    /// What `pop(timeout:)` found.
    public enum Popped {
        case element(Element)
        case timedOut
        case closed
    }

    /// Waits up to `timeout` seconds for the oldest element, so the consumer can do other work
    /// (read a receiver's feedback) while none comes.
    public func pop(timeout: Double) -> Popped {
        state.wait(until: { $0.count > 0 || $0.closed }, deadline: Date(timeIntervalSinceNow: timeout)) { state in
            guard state.count > 0, let element = state.ring[state.head] else {
                return state.closed ? .closed : .timedOut
            }
            state.ring[state.head] = nil
            state.head = (state.head + 1) % capacity
            state.count -= 1
            return .element(element)
        }
    }

    /// How many elements wait.
    public var depth: Int { state.withLock { $0.count } }

    /// Discards every waiting element and starts the drop policy afresh (a consumer that starts over).
    public func removeAll(policy: Policy) {
        state.withLock { state in
            while state.count > 0 {
                state.ring[state.head] = nil
                state.head = (state.head + 1) % capacity
                state.count -= 1
            }
            state.policy = policy
        }
    }

    /// Refuses further elements; the consumer still drains what is queued.
    public func close() {
        state.withLock(wake: .all) { $0.closed = true }
    }
}

/// What a bounded queue does with an element when it is full: a named policy, kept with the
/// queue's state and consulted under its lock.
public protocol DropPolicy: Sendable {
    associatedtype Element: Sendable
    /// Whether `element` goes in; `hasRoom` says whether the queue has room for it now.
    mutating func admits(_ element: Element, hasRoom: Bool) -> Bool
}

/// Refuses an element when the queue is full, and nothing else.
public struct DropWhenFull<Element: Sendable>: DropPolicy {
    public init() {}
    public func admits(_ element: Element, hasRoom: Bool) -> Bool { hasRoom }
}
