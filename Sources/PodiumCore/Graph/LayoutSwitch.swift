import Synchronization

/// The layout of a run's two sources, changed live (by the presenter's keys) and read by the
/// compositor at every slot: a change shows in the next frame.
///
/// Thread-safe. Reading costs an atomic load when nothing changed.
public final class LayoutSwitch: Sendable {
    private let state: Mutex<Layout>
    private let changes = Atomic<UInt64>(0)

    public init(_ layout: Layout) {
        state = Mutex(layout)
    }

    /// The layout now.
    public var layout: Layout { state.withLock { $0 } }

    /// Counts the changes made: a reader that saw another count reads `layout` again.
    public var version: UInt64 { changes.load(ordering: .acquiring) }

    /// Changes the layout.
    /// - Returns: the new layout, or `nil` when `body` left it as it was.
    @discardableResult
    public func change(_ body: (inout Layout) -> Void) -> Layout? {
        let changed = state.withLock { layout -> Layout? in
            let before = layout
            body(&layout)
            return layout == before ? nil : layout
        }
        if changed != nil { changes.add(1, ordering: .releasing) }
        return changed
    }
}
