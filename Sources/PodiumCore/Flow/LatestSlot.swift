import Foundation

/// A hand-off of capacity one between a producer that must never wait and one consumer thread:
/// a new element replaces a pending one, and the replaced element is handed back to the producer
/// so it can recycle it and count the drop. The drop policy is named: *latest wins*.
///
/// Thread-safe. `take()` blocks, so call it from a dedicated thread, never from the cooperative pool.
public final class LatestSlot<Element: Sendable>: Sendable {
    private struct State: Sendable {
        var pending: Element?
        var closed = false
    }
    private let state = ConditionLock(State())

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
        state.withLock(wake: .one) { state in
            guard !state.closed else { return element }
            if let pending = state.pending, keep(pending) { return element }
            defer { state.pending = element }
            return state.pending
        }
    }

    /// Whether an element waits to be taken.
    public var hasPending: Bool { state.withLock { $0.pending != nil } }

    /// Waits for an element; `nil` once the slot is closed and empty.
    public func take() -> Element? {
        state.wait(until: { $0.pending != nil || $0.closed }) { state in
            defer { state.pending = nil }
            return state.pending
        }
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
        state.wait(until: { $0.pending != nil || $0.closed }, deadline: Date(timeIntervalSinceNow: timeout)) { state in
            if let element = state.pending {
                state.pending = nil
                return .element(element)
            }
            return state.closed ? .closed : .timedOut
        }
    }

    /// Stops accepting elements; the consumer still receives the pending one.
    public func close() {
        state.withLock(wake: .all) { $0.closed = true }
    }

    /// Closes the slot and hands back the element still pending, for its owner to recycle: a
    /// consumer that is gone takes nothing more.
    public func closeAndEmpty() -> Element? {
        state.withLock(wake: .all) { state in
            state.closed = true
            defer { state.pending = nil }
            return state.pending
        }
    }
}
