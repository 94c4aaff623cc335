/// One thing a presenter can do to a running run, declared once: its keys in the mirror window and
/// the terminal, its key held for the whole desktop, its button on the remote page, its words for
/// `?`, the values `podium control` sets it to. The keys, `podium control` (`key K`, and `NAME
/// VALUE` for an action with values), the global keys, the remote's buttons, `?` and `--help` read
/// `LiveAction.all`; what it does is its `command`'s effect (`RunControl.perform`, and
/// `RunControl.present` for a value).
public struct LiveAction: Sendable, Hashable, CustomStringConvertible {
    /// When `?` mentions it.
    public enum Shown: Sendable, Hashable {
        case always
        /// The highlight and the zoom can be drawn (X11 screens).
        case presenterTools
        /// The pen can be had.
        case pen
        /// The run keeps a replay to save.
        case replay
        /// The run has two sources.
        case layouts
        /// In the mirror window.
        case window
    }

    /// Its name, as `--hotkey NAME=KEYS` takes it: `blank`, `record-pause`.
    public let name: String
    /// The keys that do it, by name (`space`, `Escape`, `b`); the first is its own, the others the
    /// keys that share its key cap (`=` beside `+`).
    public let keys: [String]
    /// What it does.
    public let command: KeyCommand
    /// `?`'s words for it, its keys first (`b w blank`); `nil` when another's words say it too.
    public let help: String?
    /// What it does, in a few words, for `--help` and a desktop that lists the keys it holds.
    public let purpose: String
    /// The key it is held for on the whole desktop unless `--hotkey` says otherwise; `nil` for none.
    public let globalKey: String?
    /// Its button on the remote's page; `nil` when the page has none (the end of the run, what is
    /// the window's or the terminal's own).
    public let button: String?
    public let shown: Shown
    /// The values `podium control NAME VALUE` sets it to (`blank white`, `zoom 2`); empty for an
    /// action that is a key alone (`podium control key k`).
    public let values: [String]

    public var description: String { name }

    /// Every live action, in the order `?` says them.
    public static let all: [LiveAction] = [
        LiveAction(name: "pause", keys: ["space", " "], command: .pause, help: "space pause",
                   purpose: "freeze the picture, or go on", globalKey: "Ctrl+Alt+P", button: "Pause"),
        LiveAction(name: "blank", keys: ["b"], command: .blank(.black), help: "b w blank",
                   purpose: "blank the picture black, or show it again", globalKey: "Ctrl+Alt+B", button: "Black",
                   values: ["black", "white", "off"]),
        LiveAction(name: "white", keys: ["w"], command: .blank(.white), help: nil,
                   purpose: "blank the picture white, or show it again", globalKey: "Ctrl+Alt+W", button: "White"),
        LiveAction(name: "highlight", keys: ["h"], command: .highlight, help: "h highlight",
                   purpose: "highlight the pointer, or stop", globalKey: "Ctrl+Alt+H", button: "Highlight",
                   shown: .presenterTools, values: ["on", "off"]),
        LiveAction(name: "zoom", keys: ["z"], command: .zoom, help: "z zoom",
                   purpose: "zoom in around the pointer: 2x, 4x, then back", globalKey: "Ctrl+Alt+Z", button: "Zoom",
                   shown: .presenterTools, values: PresenterTools.zoomFactors.map(String.init)),
        LiveAction(name: "pen", keys: ["d"], command: .pen, help: "d pen",
                   purpose: "draw over the screen with the pointer, or stop", globalKey: "Ctrl+Alt+D", shown: .pen,
                   values: ["on", "off"]),
        LiveAction(name: "faster", keys: ["+", "="], command: .frameRate(1), help: "+ - frame rate",
                   purpose: "raise the frame rate a step", globalKey: "Ctrl+Alt+Equal", button: "fps +"),
        LiveAction(name: "slower", keys: ["-"], command: .frameRate(-1), help: nil,
                   purpose: "lower the frame rate a step", globalKey: "Ctrl+Alt+Minus", button: "fps −"),
        LiveAction(name: "lower-rate", keys: ["<", ","], command: .encoderRate(-1), help: "< > bit rate",
                   purpose: "the bit rate a step lower, or the quality a step worse"),
        LiveAction(name: "higher-rate", keys: [">", "."], command: .encoderRate(1), help: nil,
                   purpose: "the bit rate a step higher, or the quality a step better"),
        LiveAction(name: "keyframe", keys: ["k"], command: .keyframe, help: "k keyframe",
                   purpose: "a keyframe now, from every encoder"),
        LiveAction(name: "mark", keys: ["m"], command: .mark, help: "m mark",
                   purpose: "mark this moment in the run's statistics", globalKey: "Ctrl+Alt+M", button: "Mark"),
        LiveAction(name: "record", keys: ["r"], command: .record, help: "r record",
                   purpose: "start a recording, or stop it", globalKey: "Ctrl+Alt+R", button: "Record"),
        LiveAction(name: "record-pause", keys: ["p"], command: .pauseRecording, help: "p pause recording",
                   purpose: "pause the recording, or resume it", globalKey: "Ctrl+Alt+Shift+R", button: "Pause rec."),
        LiveAction(name: "replay-save", keys: ["s"], command: .saveReplay, help: "s save replay",
                   purpose: "save the last minutes the run kept to a file", globalKey: "Ctrl+Alt+S",
                   button: "Save replay", shown: .replay),
        LiveAction(name: "quit", keys: ["q", "Escape"], command: .quit, help: "q quit",
                   purpose: "end the run cleanly, as Ctrl-C does"),
        LiveAction(name: "layout", keys: ["l"], command: .cycleLayout, help: "l layout",
                   purpose: "the next layout of two sources", globalKey: "Ctrl+Alt+L", button: "Layout",
                   shown: .layouts, values: ["next", "swap"]),
        LiveAction(name: "swap", keys: ["x"], command: .swapSources, help: "x swap sources",
                   purpose: "swap the primary and the secondary source", shown: .layouts),
        LiveAction(name: "narrower", keys: ["["], command: .resize(-1), help: "[ ] resize",
                   purpose: "move the split of two sources, or shrink the corner picture, a step", shown: .layouts),
        LiveAction(name: "wider", keys: ["]"], command: .resize(1), help: nil,
                   purpose: "move the split the other way, or grow the corner picture, a step", shown: .layouts),
        LiveAction(name: "fullscreen", keys: ["f"], command: .fullscreen, help: "f fullscreen",
                   purpose: "the mirror window fullscreen, or not", shown: .window),
        LiveAction(name: "help", keys: ["?"], command: .help, help: nil, purpose: "the keys, on one line"),
    ]

    private init(name: String, keys: [String], command: KeyCommand, help: String?, purpose: String,
                 globalKey: String? = nil, button: String? = nil, shown: Shown = .always, values: [String] = []) {
        self.name = name
        self.keys = keys
        self.command = command
        self.help = help
        self.purpose = purpose
        self.globalKey = globalKey
        self.button = button
        self.shown = shown
        self.values = values
    }

    /// The action a key does (`space`, `Escape`, `l`), or `nil` for a key without one.
    public static func action(forKey key: String) -> LiveAction? {
        all.first { $0.keys.contains(key) }
    }

    /// The action named `name` (`blank`, `record-pause`).
    public static func named(_ name: String) -> LiveAction? {
        all.first { $0.name == name }
    }

    /// The actions held for the whole desktop by default, in order.
    public static var global: [LiveAction] { all.filter { $0.globalKey != nil } }

    /// The actions the run itself does, which a global key, `podium control key` and the remote
    /// may ask for: all but the mirror window's own (fullscreen) and the terminal's (`?`).
    public static var runs: [LiveAction] { all.filter { ![.fullscreen, .help].contains($0.command) } }

    /// The actions `podium control` sets by name, with a value or as their keys do.
    public static var valued: [LiveAction] { all.filter { !$0.values.isEmpty } }

    /// Whether the remote's page offers it.
    public var isOnTheRemote: Bool { button != nil }

    /// Its own key, as `podium control key` and the remote's page send it.
    public var key: String { keys[0] }

    public static func == (left: LiveAction, right: LiveAction) -> Bool { left.name == right.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
