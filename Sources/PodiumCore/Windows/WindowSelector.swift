/// Which window `--window` names: its X id, `pick` (the user clicks it), or a name matched
/// against titles and classes.
public enum WindowSelector: Hashable, Sendable, CustomStringConvertible {
    case id(UInt32)
    case pick
    case name(String)

    /// Reads `0x1a00007` (hexadecimal, as `xwininfo` and `podium windows` print it) or `27262983`
    /// (decimal, as `xdotool` prints it) as an id, `pick` as a click, anything else as a name.
    public init(parsing text: String) throws(OptionParseError) {
        if text == "pick" {
            self = .pick
        } else if text.lowercased().hasPrefix("0x") {
            guard let id = UInt32(text.dropFirst(2), radix: 16), id != 0 else {
                throw OptionParseError("expected a window id such as 0x1a00007, a title or pick")
            }
            self = .id(id)
        } else if let id = UInt32(text), id != 0 {
            self = .id(id)
        } else if text.allSatisfy(\.isWhitespace) {
            throw OptionParseError("expected a window title (or a part of it), an id such as 0x1a00007, or pick")
        } else {
            self = .name(text)
        }
    }

    public var description: String {
        switch self {
        case .id(let id): "0x" + String(id, radix: 16)
        case .pick: "pick"
        case .name(let name): name
        }
    }

    /// The windows `name` matches among `windows`, in the first way that matches any: the exact
    /// title, then a part of the title in any case, then the class or instance name in any case.
    /// A title a user types in full should not be ambiguous because another window's title
    /// contains it; the class is the last resort (`--window firefox`).
    public static func matches(of name: String, in windows: [ClientWindow]) -> [ClientWindow] {
        let exact = windows.filter { $0.title == name }
        if !exact.isEmpty { return exact }
        let lowered = name.lowercased()
        let part = windows.filter { $0.title.lowercased().contains(lowered) }
        if !part.isEmpty { return part }
        return windows.filter { $0.className.lowercased() == lowered || $0.instance.lowercased() == lowered }
    }

    /// The one window this selector names among `windows` (`pick` is resolved by the caller).
    /// - Throws: 69 when none matches, listing the windows there are (up to ten); 64 when a
    ///   name matches several, listing them with their ids so one can be named by id.
    public func select(from windows: [ClientWindow]) throws(PodiumError) -> ClientWindow {
        let found: [ClientWindow]
        switch self {
        case .id(let id): found = windows.filter { $0.id == id }
        case .name(let name): found = Self.matches(of: name, in: windows)
        case .pick: found = []
        }
        if found.count == 1 { return found[0] }
        if found.count > 1 {
            throw .usage("matches \(found.count) windows: " + found.map(\.label).joined(separator: ", ")
                         + "; name one by its id", about: .window(self))
        }
        throw .unavailable("no such window; " + Self.listing(windows), about: .window(self))
    }

    /// `windows here: 'a' (0x…), 'b' (0x…)`, at most ten of them, for a message.
    public static func listing(_ windows: [ClientWindow]) -> String {
        guard !windows.isEmpty else { return "this display shows no windows" }
        let shown = windows.prefix(10).map(\.label).joined(separator: ", ")
        return "windows here: " + shown + (windows.count > 10 ? " and \(windows.count - 10) more" : "")
    }
}
