import ArgumentParser
import PodiumCore

/// The presenter's keys held for the whole desktop (`mirror` and `stream`).
struct HotkeyOptions: ParsableArguments {
    @Flag(inversion: .prefixedNo,
          help: ArgumentHelp("Hold the presenter's keys for the whole desktop (X11), so that they work while the "
                             + "slides have the focus: Ctrl+Alt+B blanks, and so on (default: on for mirror, off for "
                             + "stream; said as the run starts)."))
    var hotkeys: Bool?

    @Option(name: .customLong("hotkey"),
            help: ArgumentHelp("Bind a global key, such as blank=Ctrl+Alt+B; the actions: "
                               + HotkeyAction.allCases.map(\.rawValue).joined(separator: ", ")
                               + ". Repeatable; turns --hotkeys on.", valueName: "ACTION=KEYS"),
            transform: parsed { text throws(OptionParseError) in
                _ = try Hotkeys(changes: [text])
                return text
            })
    var hotkeyChanges: [String] = []

    /// The keys held for the whole desktop, or `nil` when the run holds none.
    /// - Parameter byDefault: whether the command holds them without `--hotkeys`.
    func globalKeys(byDefault: Bool) throws(OptionParseError) -> Hotkeys? {
        guard hotkeys ?? (byDefault || !hotkeyChanges.isEmpty) else { return nil }
        return try Hotkeys(changes: hotkeyChanges)
    }

    func validate() throws {
        do throws(OptionParseError) {
            _ = try Hotkeys(changes: hotkeyChanges)
        } catch {
            throw ValidationError("--hotkey: \(error.reason)")
        }
    }
}
