import Foundation

/// A hand-off of capacity one between a producer that must never wait and one consumer thread:
/// a new element replaces a pending one, and the replaced element is handed back to the producer
/// so it can recycle it and count the drop.
///
/// Thread-safe. `take()` blocks, so call it from a dedicated thread, never from the cooperative pool.
public final class LatestSlot<Element: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var pending: Element?
    private var closed = false

    public init() {}

    /// Leaves `element` for the consumer.
    /// - Returns: the element it displaced (a drop), or `element` itself if the slot is closed.
    public func offer(_ element: Element) -> Element? {
        offer(element, keepingPending: { _ in false })
    }

    /// Leaves `element` for the consumer, unless the pending element is one to keep: then
    /// `element` is the one dropped.
    /// - Returns: the element dropped (the displaced one, or `element`), or `nil`.
    public func offer(_ element: Element, keepingPending keep: (Element) -> Bool) -> Element? {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return element }
        if let pending, keep(pending) { return element }
        let displaced = pending
        pending = element
        condition.signal()
        return displaced
    }

    /// Waits for an element; `nil` once the slot is closed and empty.
    public func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while pending == nil && !closed { condition.wait() }
        defer { pending = nil }
        return pending
    }

    /// What `take(timeout:)` found.
    public enum Taken {
        case element(Element)
        case timedOut
        case closed
    }

    /// Waits up to `timeout` seconds for an element, so the consumer can do other work (handle
    /// window events, say) while no frames come.
    public func take(timeout: Double) -> Taken {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while pending == nil && !closed {
            if !condition.wait(until: deadline) { break }
        }
        if let element = pending {
            pending = nil
            return .element(element)
        }
        return closed ? .closed : .timedOut
    }

    /// Stops accepting elements; the consumer still receives the pending one.
    public func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
