import Foundation
@testable import PodiumCore
import Testing

/// `--hotkey`: keys as people write them, the defaults, and what is refused.
@Suite struct HotkeyTests {
    @Test func keysAreReadInAnyCaseAndWrittenBackOneWay() throws {
        let key = try Hotkey(parsing: "alt+CTRL+b")
        #expect(key.modifiers == [.control, .alt])
        #expect(key.keysym == 0x62)
        #expect(key.description == "Ctrl+Alt+B")
        #expect(try Hotkey(parsing: "Super+F5").description == "Super+F5")
        #expect(try Hotkey(parsing: "F9").keysym == 0xFFC6)
        #expect(try Hotkey(parsing: "Ctrl+Shift+Up").description == "Ctrl+Shift+Up")
    }

    @Test(arguments: ["B", "Shift+B", "Space", "Ctrl+", "+B", "Hyper+B", "Ctrl+Alt+Pause", "Ctrl+Alt+F13", ""])
    func refused(text: String) {
        #expect(throws: OptionParseError.self) { try Hotkey(parsing: text) }
    }

    @Test func defaultsAreCtrlAltAndTheWindowsKeys() throws {
        let keys = try Hotkeys()
        #expect(keys.summary == "Ctrl+Alt with B blank, W white, H highlight, Z zoom, D pen, L layout, P pause, "
                + "Equal faster, Minus slower, R record, Shift+R record-pause, S replay-save")
        #expect(keys.without([.saveReplay]).summary.hasSuffix("R record, Shift+R record-pause"))
        let moved = try Hotkeys(changes: ["pause=Super+F5"])
        #expect(moved.summary.hasPrefix("blank Ctrl+Alt+B, white Ctrl+Alt+W, "), "\(moved.summary)")
        #expect(moved.summary.contains("pause Super+F5"), "\(moved.summary)")
        #expect(keys.action(for: try Hotkey(parsing: "Ctrl+Alt+B")) == .blank)
        #expect(keys.action(for: try Hotkey(parsing: "Ctrl+B")) == nil)
    }

    /// sway has no portal for global keys: the lines to paste bind the same keys to
    /// `podium control key`, with the window's key for each action.
    @Test func swayBindingsSendTheWindowsKeys() throws {
        let lines = try Hotkeys(changes: ["pause=Super+Space", "zoom=Ctrl+Shift+PageUp"]).swayBindings
        #expect(lines.first == "bindsym Ctrl+Mod1+b exec podium control key b")
        #expect(lines.contains("bindsym Mod4+space exec podium control key space"))
        #expect(lines.contains("bindsym Ctrl+Shift+Prior exec podium control key z"))
        #expect(lines.contains("bindsym Ctrl+Mod1+minus exec podium control key -"))
        #expect(lines.contains("bindsym Ctrl+Mod1+r exec podium control key r"))
        #expect(lines.contains("bindsym Ctrl+Mod1+Shift+r exec podium control key p"))
        #expect(lines.last == "bindsym Ctrl+Mod1+s exec podium control key s")
        #expect([HotkeyAction.blank, .white, .pause, .faster, .slower].map(\.command)
                == [.blank(.black), .blank(.white), .pause, .frameRate(1), .frameRate(-1)])
    }

    /// The GlobalShortcuts portal takes triggers as the XDG shortcuts spec writes them.
    @Test func portalTriggersAreWrittenAsTheShortcutsSpecSays() throws {
        let keys = try Hotkeys(changes: ["pause=Super+F5", "zoom=Ctrl+Shift+PageDown", "layout=Alt+Space"])
        let triggers = Dictionary(uniqueKeysWithValues: keys.bindings.map { ($0.action, $0.key.portalTrigger) })
        #expect(triggers[.blank] == "CTRL+ALT+b")
        #expect(triggers[.pause] == "LOGO+F5")
        #expect(triggers[.zoom] == "CTRL+SHIFT+Next")
        #expect(triggers[.layout] == "ALT+space")
        #expect(triggers[.faster] == "CTRL+ALT+equal")
    }

    @Test func aRecordingIsNamedByTheTime() {
        var moment = tm()
        (moment.tm_year, moment.tm_mon, moment.tm_mday) = (126, 10, 28)
        (moment.tm_hour, moment.tm_min, moment.tm_sec) = (7, 5, 2)
        #expect(RunControl.recordingName(for: moment) == "podium-2026-11-28-070502.mkv")
    }

    /// A key the user gives takes the place of a default they never chose, which is said; two
    /// keys the user gives alike are refused.
    @Test func aChangeMovesOneActionAndAClashIsRefused() throws {
        let keys = try Hotkeys(changes: ["BLANK=Super+F5"])
        #expect(keys.action(for: try Hotkey(parsing: "Super+F5")) == .blank)
        #expect(keys.action(for: try Hotkey(parsing: "Ctrl+Alt+B")) == nil)
        let pen = try Hotkeys(changes: ["pen=Ctrl+Alt+P"])
        #expect(pen.action(for: try Hotkey(parsing: "Ctrl+Alt+P")) == .pen)
        #expect(!pen.bindings.contains { $0.action == .pause } && pen.displaced.map(\.action) == [.pause])
        #expect(pen.summary.hasSuffix("; pause has none (Ctrl+Alt+P is pen's)"), "\(pen.summary)")
        #expect(throws: OptionParseError("Ctrl+Alt+Q is both zoom and pen")) {
            try Hotkeys(changes: ["pen=Ctrl+Alt+Q", "zoom=Ctrl+Alt+Q"])
        }
        #expect(throws: OptionParseError.self) { try Hotkeys(changes: ["blank"]) }
    }
}
