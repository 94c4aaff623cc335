import ArgumentParser
import PodiumCore

/// The presenter's reach beyond the terminal and the window (`mirror` and `stream`): keys held for
/// the whole desktop, and the remote page for a phone.
struct HotkeyOptions: ParsableArguments {
    @Flag(inversion: .prefixedNo,
          help: ArgumentHelp("Hold the presenter's keys for the whole desktop (X11, or the desktop's portal; sway: "
                             + "lines to paste), so that they work while the slides have the focus: Ctrl+Alt+B blanks, "
                             + "and so on (default: on for mirror, off for stream; said as the run starts)."))
    var hotkeys: Bool?

    @Option(name: .customLong("hotkey"),
            help: ArgumentHelp("Bind a global key, such as blank=Ctrl+Alt+B, in place of its default; the "
                               + "actions: " + LiveAction.runs.map(\.name).joined(separator: ", ")
                               + ". Repeatable; turns --hotkeys on.", valueName: "ACTION=KEYS"),
            transform: parsed { text throws(OptionParseError) in
                _ = try Hotkeys(changes: [text])
                return text
            })
    var hotkeyChanges: [String] = []

    @Flag(help: ArgumentHelp("Serve a remote for your phone beside the browser viewer (--to http://…): a preview, "
                             + "the presenter's buttons and a live chart, behind a link and QR code of its own."))
    var remote = false

    @Flag(help: ArgumentHelp("Draw the remote's and the extra screen's links and QR codes on this terminal; by "
                             + "default a terminal, which the room may see, names a file of yours that holds them."))
    var showRemote = false

    /// Refuses `--remote` without a browser viewer to serve its page beside.
    func checkRemote(viewers: [ViewerRequest]) throws(PodiumError) {
        guard remote, viewers.isEmpty else { return }
        throw .usage("--remote: its page is served beside the browser viewer; add one, such as "
                     + "--to http://0.0.0.0:8080")
    }

    /// The keys held for the whole desktop, or `nil` when the run holds none.
    /// - Parameters:
    ///   - byDefault: whether the command holds them without `--hotkeys`.
    ///   - replay: the run keeps a replay: its key is held too.
    func globalKeys(byDefault: Bool, replay: Bool) throws(OptionParseError) -> Hotkeys? {
        guard hotkeys ?? (byDefault || !hotkeyChanges.isEmpty) else { return nil }
        let keys = try Hotkeys(changes: hotkeyChanges)
        return replay ? keys : keys.without(LiveAction.all.filter { $0.shown == .replay })
    }

    func validate() throws {
        do throws(OptionParseError) {
            _ = try Hotkeys(changes: hotkeyChanges)
        } catch {
            throw ValidationError("--hotkey: \(error.reason)")
        }
    }
}
