import Foundation

/// A first-in first-out queue with a fixed capacity between producers that must never wait and
/// one consumer thread. A full queue refuses the element; the producer applies its drop policy.
///
/// Thread-safe. `pop()` blocks, so call it from a dedicated thread, never from the cooperative pool.
public final class BoundedQueue<Element: Sendable>: @unchecked Sendable {
    /// What happened to an element offered with `push`.
    public enum PushResult: Sendable, Equatable {
        case enqueued, full, closed
    }

    public let capacity: Int
    private let condition = NSCondition()
    private var ring: [Element?]
    private var head = 0
    private var count = 0
    private var closed = false

    public init(capacity: Int) {
        precondition(capacity > 0, "a queue needs room for at least one element")
        self.capacity = capacity
        ring = Array(repeating: nil, count: capacity)
    }

    /// Appends `element` unless the queue is full or closed; never blocks.
    public func push(_ element: Element) -> PushResult {
        condition.lock()
        defer { condition.unlock() }
        if closed { return .closed }
        if count == capacity { return .full }
        ring[(head + count) % capacity] = element
        count += 1
        condition.signal()
        return .enqueued
    }

    /// Waits for the oldest element; `nil` once the queue is closed and drained.
    public func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while count == 0 && !closed { condition.wait() }
        guard count > 0 else { return nil }
        defer {
            ring[head] = nil
            head = (head + 1) % capacity
            count -= 1
        }
        return ring[head]
    }

    /// How many elements wait.
    public var depth: Int {
        condition.lock()
        defer { condition.unlock() }
        return count
    }

    /// Discards every waiting element (a consumer that starts over).
    public func removeAll() {
        condition.lock()
        defer { condition.unlock() }
        while count > 0 {
            ring[head] = nil
            head = (head + 1) % capacity
            count -= 1
        }
    }

    /// Refuses further elements; the consumer still drains what is queued.
    public func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
