/// One source as `--source` names it: a monitor, a rectangle of the screen, or another display's
/// primary monitor.
public enum SourceRequest: Hashable, Sendable, CustomStringConvertible {
    /// `monitor:NAME` (a RandR name, an index, or `primary`) on `--display`.
    case monitor(MonitorSelector)
    /// `WxH+X+Y` on `--display`.
    case region(PixelRect)
    /// `:N` (or `:N.S`): that display's primary monitor.
    case display(String)

    /// Reads `monitor:NAME`, `WxH+X+Y` or `:N`.
    public init(parsing text: String) throws(OptionParseError) {
        if text.hasPrefix("monitor:") {
            let name = String(text.dropFirst("monitor:".count))
            guard !name.isEmpty else { throw OptionParseError("monitor: needs a name, an index or primary") }
            self = .monitor(try MonitorSelector(parsing: name))
        } else if text.hasPrefix(":") {
            let number = text.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
            guard (1...2).contains(number.count), number.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }) else {
                throw OptionParseError("expected a display such as :1 or :1.0")
            }
            self = .display(text)
        } else if text.first?.isNumber == true {
            self = .region(try PixelRect(parsing: text))
        } else {
            throw OptionParseError("expected monitor:NAME, WxH+X+Y or :N")
        }
    }

    public var description: String {
        switch self {
        case .monitor(let selector): "monitor:\(selector)"
        case .region(let rect): rect.description
        case .display(let display): display
        }
    }
}
