/// One source as `--source` names it: a window, a monitor, a rectangle of the screen, or another
/// display's primary monitor.
public enum SourceRequest: Hashable, Sendable, CustomStringConvertible {
    /// `window:NAME|ID|pick` on `--display` (`--window` is short for it).
    case window(WindowSelector)
    /// `monitor:NAME` (a RandR name, an index, or `primary`) on `--display`.
    case monitor(MonitorSelector)
    /// `WxH+X+Y` on `--display`.
    case region(PixelRect)
    /// `:N` (or `:N.S`): that display's primary monitor.
    case display(String)
    /// `wlr[:NAME]`: an output of the Wayland compositor (`$WAYLAND_DISPLAY`) through wlroots'
    /// screencopy: the one named (a name or an index), else the one `--monitor` names.
    case wlr(MonitorSelector?)
    /// `pipewire:NODE`: a PipeWire video node (a camera, another program's stream).
    case pipewire(UInt32)
    /// `portal`: the monitor or window the user shares through the desktop's ScreenCast portal.
    case portal
    /// `camera[:NAME]`: a camera PipeWire offers, by a part of its name; the first by default.
    case camera(String?)

    /// Reads `window:NAME`, `monitor:NAME`, `WxH+X+Y`, `:N`, `wlr`, `portal`, `pipewire:NODE` or
    /// `camera[:NAME]`.
    public init(parsing text: String) throws(OptionParseError) {
        if text == "wlr" {
            self = .wlr(nil)
        } else if text.hasPrefix("wlr:") {
            let name = String(text.dropFirst("wlr:".count))
            guard !name.isEmpty else { throw OptionParseError("wlr: needs an output's name or index") }
            self = .wlr(try MonitorSelector(parsing: name))
        } else if text == "camera" || text.hasPrefix("camera:") {
            let name = text.dropFirst("camera:".count)
            guard text == "camera" || !name.isEmpty else {
                throw OptionParseError("camera: needs a part of a camera's name (or none, for the first)")
            }
            self = .camera(text == "camera" ? nil : String(name))
        } else if text == "portal" {
            self = .portal
        } else if text.hasPrefix("pipewire:") {
            guard let node = UInt32(text.dropFirst("pipewire:".count)) else {
                throw OptionParseError("pipewire: needs a node id, as 'pw-cli ls Node' lists them")
            }
            self = .pipewire(node)
        } else if text.hasPrefix("window:") {
            self = .window(try WindowSelector(parsing: String(text.dropFirst("window:".count))))
        } else if text.hasPrefix("monitor:") {
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
            throw OptionParseError("expected window:NAME, monitor:NAME, WxH+X+Y, :N, wlr, portal, pipewire:NODE or "
                                   + "camera[:NAME]")
        }
    }

    /// Whether it is an X server's: a window, a monitor or a rectangle of a screen (not a Wayland
    /// output, what the portal shares, a PipeWire node or a camera, each one whole picture).
    public var isX11: Bool {
        switch self {
        case .window, .monitor, .region, .display: true
        case .wlr, .portal, .pipewire, .camera: false
        }
    }

    /// Whether windows can be masked on it: an X11 screen, or a wlroots output (through sway's IPC).
    public var masksWindows: Bool {
        switch self {
        case .monitor, .region, .display, .wlr: true
        case .window, .portal, .pipewire, .camera: false
        }
    }

    /// Whether it names a window.
    public var isWindow: Bool {
        if case .window = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .window(let selector): "window:\(selector)"
        case .monitor(let selector): "monitor:\(selector)"
        case .region(let rect): rect.description
        case .display(let display): display
        case .wlr(let output): "wlr" + (output.map { ":\($0)" } ?? "")
        case .portal: "portal"
        case .pipewire(let node): "pipewire:\(node)"
        case .camera(let name): "camera" + (name.map { ":\($0)" } ?? "")
        }
    }
}
