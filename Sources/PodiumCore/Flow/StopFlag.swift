import Synchronization

/// A one-way flag that real-time threads poll to learn that the run should end.
public final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    public init() {}

    public var isRaised: Bool { raised.load(ordering: .acquiring) }

    /// Raises the flag; returns whether this call was the first to do so.
    @discardableResult
    public func raise() -> Bool {
        !raised.exchange(true, ordering: .acquiringAndReleasing)
    }
}
