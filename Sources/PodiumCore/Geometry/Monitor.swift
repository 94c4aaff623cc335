/// A RandR monitor: a named area of the screen, usually one physical output.
public struct Monitor: Hashable, Sendable, Codable {
    public var index: Int
    public var name: String
    public var rect: PixelRect
    public var isPrimary: Bool

    public init(index: Int, name: String, rect: PixelRect, isPrimary: Bool) {
        self.index = index
        self.name = name
        self.rect = rect
        self.isPrimary = isPrimary
    }
}

/// Which monitor `--monitor` names: `primary`, a RandR name, or an index from `podium displays`.
public enum MonitorSelector: Hashable, Sendable, CustomStringConvertible {
    case primary
    case name(String)
    case index(Int)

    public init(parsing text: String) throws(OptionParseError) {
        if text == "primary" {
            self = .primary
        } else if let index = Int(text) {
            guard index >= 0 else { throw OptionParseError("a monitor index cannot be negative") }
            self = .index(index)
        } else if text.isEmpty {
            throw OptionParseError("expected primary, a monitor name or an index")
        } else {
            self = .name(text)
        }
    }

    public var description: String {
        switch self {
        case .primary: "primary"
        case .name(let name): name
        case .index(let index): String(index)
        }
    }

    /// The monitor this selector picks among `monitors`.
    ///
    /// `primary` falls back to the first monitor when none is marked primary, and to `nil` when
    /// there are no monitors at all (the caller then captures the whole root window).
    /// - Throws: when a name or index matches nothing; the message lists the names there are.
    public func select(from monitors: [Monitor]) throws(PodiumError) -> Monitor? {
        switch self {
        case .primary:
            return monitors.first(where: \.isPrimary) ?? monitors.first
        case .name(let name):
            if let match = monitors.first(where: { $0.name == name }) { return match }
        case .index(let index):
            if monitors.indices.contains(index) { return monitors[index] }
        }
        let known = monitors.isEmpty
            ? "this display reports no monitors"
            : "monitors here: " + monitors.map { "\($0.index) \($0.name)" }.joined(separator: ", ")
        throw .unavailable("unknown monitor '\(self)'; \(known)")
    }
}
