import Synchronization

/// The presenter's tools that keys turn on and off as the run goes (`h`, `z`): read by the
/// capture thread at each grab, set by the keys and the control socket.
public final class PresenterTools: Sendable {
    /// The zoom factors `z` steps through.
    public static let zoomFactors = [1, 2, 4]

    /// The highlight's look, whether it is on or not (`h` turns on the default one).
    public let highlightStyle: PointerHighlight
    /// Why the run's source cannot have the tools (it does not say where the pointer is), for
    /// the keys to say instead of turning on what would not show; `nil` when it can.
    public let unavailable: String?
    private let highlighting: Atomic<Bool>
    private let zoomFactor: Atomic<Int>

    /// - Parameters:
    ///   - highlight: `--highlight-pointer`, on from the start; `nil` for off.
    ///   - zoom: `--zoom`, one of `zoomFactors`.
    ///   - unavailable: why they cannot be drawn; `nil` when they can.
    public init(highlight: PointerHighlight? = nil, zoom: Int = 1, unavailable: String? = nil) {
        highlightStyle = highlight ?? .default
        self.unavailable = unavailable
        highlighting = Atomic(highlight != nil)
        zoomFactor = Atomic(zoom)
    }

    /// Whether the pointer is highlighted now.
    public var isHighlighting: Bool { highlighting.load(ordering: .relaxed) }

    /// How many times the picture is magnified around the pointer now: 1 for none.
    public var zoom: Int { zoomFactor.load(ordering: .relaxed) }

    /// Turns the highlight on or off. - Returns: whether it is on now.
    func toggleHighlight() -> Bool {
        !highlighting.logicalXor(true, ordering: .relaxed).oldValue
    }

    /// Sets the zoom. - Returns: the factor before.
    func setZoom(_ factor: Int) -> Int {
        zoomFactor.exchange(factor, ordering: .relaxed)
    }

    /// The factor after `factor` in `zoomFactors`, back to 1 after the last.
    static func zoom(after factor: Int) -> Int {
        let index = zoomFactors.firstIndex(of: factor) ?? 0
        return zoomFactors[(index + 1) % zoomFactors.count]
    }
}
