/// A key with its modifiers, as `--hotkey` names it: `Ctrl+Alt+B`. Global keys are held for the
/// whole desktop, so a letter, a digit or the space bar needs Ctrl, Alt or Super with it: alone
/// (or with Shift) it would be taken from every program the presenter types in.
public struct Hotkey: Sendable, Hashable, CustomStringConvertible {
    /// X11's modifier masks, which the grabs take as they are.
    public struct Modifiers: OptionSet, Sendable, Hashable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        public static let shift = Modifiers(rawValue: 1)
        public static let control = Modifiers(rawValue: 4)
        public static let alt = Modifiers(rawValue: 8)
        public static let `super` = Modifiers(rawValue: 64)
    }

    public var modifiers: Modifiers
    /// The key's X keysym (the unshifted one: `b`, not `B`).
    public var keysym: UInt32
    /// The key's name as written back: `B`, `Space`, `Up`, `F5`.
    public var key: String

    /// The modifiers' names as `--hotkey` takes them, in the order they are written back.
    private static let modifierNames: [(names: [String], modifier: Modifiers, written: String)] = [
        (["ctrl", "control"], .control, "Ctrl"), (["alt", "meta"], .alt, "Alt"),
        (["super", "win", "mod4"], .super, "Super"), (["shift"], .shift, "Shift"),
    ]

    /// The named keys besides letters, digits and F1 to F12.
    private static let namedKeys: [String: (keysym: UInt32, written: String)] = [
        "space": (0x20, "Space"), "up": (0xFF52, "Up"), "down": (0xFF54, "Down"), "left": (0xFF51, "Left"),
        "right": (0xFF53, "Right"), "pageup": (0xFF55, "PageUp"), "pagedown": (0xFF56, "PageDown"),
        "home": (0xFF50, "Home"), "end": (0xFF57, "End"), "minus": (0x2D, "Minus"), "equal": (0x3D, "Equal"),
    ]

    public init(modifiers: Modifiers, keysym: UInt32, key: String) {
        self.modifiers = modifiers
        self.keysym = keysym
        self.key = key
    }

    /// `Ctrl+Alt+B`, `Super+F5`: modifiers and one key, joined by `+`, in any case.
    public init(parsing text: String) throws(OptionParseError) {
        let parts = text.split(separator: "+", omittingEmptySubsequences: false).map { $0.lowercased() }
        guard let last = parts.last, !last.isEmpty, !parts.dropLast().contains("") else {
            throw OptionParseError("'\(text)' is not a key such as Ctrl+Alt+B")
        }
        var modifiers: Modifiers = []
        for name in parts.dropLast() {
            guard let modifier = Self.modifierNames.first(where: { $0.names.contains(name) }) else {
                throw OptionParseError("'\(name)' is not a modifier: use Ctrl, Alt, Super or Shift")
            }
            modifiers.insert(modifier.modifier)
        }
        let (keysym, key, needsModifier) = try Self.key(named: last)
        guard !needsModifier || !modifiers.subtracting(.shift).isEmpty else {
            throw OptionParseError("'\(text)' would take \(key) from every program: add Ctrl, Alt or Super")
        }
        self.init(modifiers: modifiers, keysym: keysym, key: key)
    }

    /// A key's keysym and written name, and whether it needs a modifier besides Shift.
    private static func key(named name: String) throws(OptionParseError) -> (UInt32, String, Bool) {
        if name.count == 1, let scalar = name.unicodeScalars.first, scalar.isASCII,
           ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
            return (scalar.value, name.uppercased(), true)
        }
        if let named = namedKeys[name] { return (named.keysym, named.written, named.keysym < 0x100) }
        if name.hasPrefix("f"), let number = Int(name.dropFirst()), (1...12).contains(number) {
            return (0xFFBE + UInt32(number - 1), "F\(number)", false)
        }
        throw OptionParseError("'\(name)' is not a key Podium knows: a letter, a digit, F1 to F12, "
                               + "Space, Up, Down, Left, Right, PageUp, PageDown, Home, End, Minus or Equal")
    }

    /// The key alone as XKB names its keysym: `b`, `space`, `Up`, `Prior`, `F5`.
    private var xkbKey: String {
        switch keysym {
        case 0x20: "space"
        case 0x2D: "minus"
        case 0x3D: "equal"
        case 0xFF55: "Prior"
        case 0xFF56: "Next"
        default: keysym < 0x100 ? key.lowercased() : key
        }
    }

    /// The key as sway's `bindsym` names it: `Ctrl+Mod1+b`, `Mod4+F5`, `Ctrl+Mod1+Up`.
    public var swayName: String { written(control: "Ctrl", alt: "Mod1", super: "Mod4", shift: "Shift") }

    /// The key as the XDG shortcuts spec writes a trigger, which the GlobalShortcuts portal takes:
    /// `CTRL+ALT+b`, `LOGO+F5`.
    public var portalTrigger: String { written(control: "CTRL", alt: "ALT", super: "LOGO", shift: "SHIFT") }

    /// The modifiers by the names given, then the key, joined by `+`.
    private func written(control: String, alt: String, super: String, shift: String) -> String {
        let modifiers: [(Modifiers, String)] = [(.control, control), (.alt, alt), (.super, `super`), (.shift, shift)]
        return (modifiers.filter { self.modifiers.contains($0.0) }.map(\.1) + [xkbKey]).joined(separator: "+")
    }

    public var description: String {
        (Self.modifierNames.filter { modifiers.contains($0.modifier) }.map(\.written) + [key]).joined(separator: "+")
    }
}

/// The global keys of a run: every action's key, the defaults with `--hotkey` changes.
public struct Hotkeys: Sendable, Equatable {
    /// Each action and its key, in `LiveAction`'s order.
    public private(set) var bindings: [(action: LiveAction, key: Hotkey)]

    /// Actions whose default key the user gave to another, each with the key and who has it now.
    public private(set) var displaced: [(action: LiveAction, key: Hotkey, by: LiveAction)] = []

    /// - Parameter changes: `--hotkey` values, `ACTION=KEYS` (`blank=Ctrl+Alt+B`). A key given
    ///   this way takes the place of a default that had it (that action is left without a global
    ///   key, and `summary` says so); two given the same key are refused.
    public init(changes: [String] = []) throws(OptionParseError) {
        var keys: [LiveAction: Hotkey] = [:]
        var chosen: Set<LiveAction> = []
        let defaults = LiveAction.global.map { "\($0.name)=\($0.globalKey ?? "")" }
        for (index, change) in (defaults + changes).enumerated() {
            guard let equals = change.firstIndex(of: "=") else {
                throw OptionParseError("'\(change)' is not ACTION=KEYS, such as blank=Ctrl+Alt+B")
            }
            let name = change[..<equals].lowercased()
            guard let action = LiveAction.runs.first(where: { $0.name == name }) else {
                throw OptionParseError("'\(change)': no action '\(name)'; the actions are "
                                       + LiveAction.runs.map(\.name).joined(separator: ", "))
            }
            do {
                keys[action] = try Hotkey(parsing: String(change[change.index(after: equals)...]))
            } catch {
                throw OptionParseError("'\(change)': \(error.reason)")
            }
            if index >= defaults.count { chosen.insert(action) }
        }
        for action in LiveAction.all where chosen.contains(action) {
            guard let key = keys[action] else { continue }
            for other in LiveAction.all where other != action && keys[other] == key {
                guard !chosen.contains(other) else {
                    throw OptionParseError("\(key) is both \(action.name) and \(other.name)")
                }
                keys[other] = nil
                displaced.append((other, key, action))
            }
        }
        bindings = LiveAction.all.compactMap { action in keys[action].map { (action, $0) } }
    }

    /// These keys but those of `actions`: what a run holds once other programs kept theirs.
    public func without(_ actions: [LiveAction]) -> Hotkeys {
        var kept = self
        kept.bindings.removeAll { actions.contains($0.action) }
        return kept
    }

    /// The action bound to `key`, if any.
    public func action(for key: Hotkey) -> LiveAction? {
        bindings.first { $0.key.modifiers == key.modifiers && $0.key.keysym == key.keysym }?.action
    }

    /// The lines to add to sway's configuration for these keys: `bindsym Ctrl+Mod1+b exec podium
    /// control key b` (sway offers no portal for global keys; `podium control` reaches the run).
    public var swayBindings: [String] {
        bindings.map { binding in
            // sway hands the line to sh: a key such as `<` or `>` is quoted.
            let key = binding.action.key
            let word = key.allSatisfy { $0.isLetter || $0.isNumber } ? key : "'\(key)'"
            return "bindsym \(binding.key.swayName) exec podium control key \(word)"
        }
    }

    /// `Ctrl+Alt with B blank, W white, …` when every key has the same modifiers, else
    /// `blank Super+F5, white Ctrl+Alt+W, …`: what the run and `?` say.
    public var summary: String {
        // The modifiers every key shares are said once (`Ctrl+Alt with B blank, …, Shift+R record-pause`).
        let shared = bindings.dropFirst().reduce(bindings.first?.key.modifiers ?? []) {
            $0.intersection($1.key.modifiers)
        }
        // A default the user's key took is said, so its loss is no surprise.
        let lost = displaced.map { "; \($0.action.name) has none (\($0.key) is \($0.by.name)'s)" }.joined()
        guard !shared.isEmpty else {
            return bindings.map { "\($0.action.name) \($0.key)" }.joined(separator: ", ") + lost
        }
        var prefix = Hotkey(modifiers: shared, keysym: 0, key: "").description
        prefix.removeLast()
        return prefix + " with " + bindings.map { binding in
            var own = binding.key
            own.modifiers.subtract(shared)
            return "\(own) \(binding.action.name)"
        }.joined(separator: ", ") + lost
    }

    public static func == (lhs: Hotkeys, rhs: Hotkeys) -> Bool {
        lhs.bindings.map(\.action) == rhs.bindings.map(\.action) && lhs.bindings.map(\.key) == rhs.bindings.map(\.key)
            && lhs.displaced.map(\.action) == rhs.displaced.map(\.action)
    }
}
