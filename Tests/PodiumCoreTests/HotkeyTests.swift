import Foundation
@testable import PodiumCore
import Testing

/// The live action of that name; a name the table lacks fails the test.
private func action(_ name: String) throws -> LiveAction {
    try #require(LiveAction.named(name))
}

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
        // The modifiers all share said once, each key then in the table's order.
        #expect(keys.summary.hasPrefix("Ctrl+Alt with P pause, B blank, W white, H highlight, Z zoom, D pen, "
                + "Equal faster, Minus slower, "), "\(keys.summary)")
        #expect(keys.summary.contains("R record, Shift+R record-pause, S replay-save"), "\(keys.summary)")
        #expect(try keys.without([action("replay-save")]).summary.hasSuffix("Shift+R record-pause, L layout"))
        let moved = try Hotkeys(changes: ["pause=Super+F5"])
        #expect(moved.summary.hasPrefix("pause Super+F5, blank Ctrl+Alt+B, white Ctrl+Alt+W, "), "\(moved.summary)")
        #expect(moved.summary.contains("pause Super+F5"), "\(moved.summary)")
        #expect(try keys.action(for: Hotkey(parsing: "Ctrl+Alt+B")) == action("blank"))
        #expect(keys.action(for: try Hotkey(parsing: "Ctrl+B")) == nil)
    }

    /// sway has no portal for global keys: the lines to paste bind the same keys to
    /// `podium control key`, with the window's key for each action.
    @Test func swayBindingsSendTheWindowsKeys() throws {
        let lines = try Hotkeys(changes: ["pause=Super+Space", "zoom=Ctrl+Shift+PageUp"]).swayBindings
        #expect(lines.first == "bindsym Mod4+space exec podium control key space")
        #expect(lines.contains("bindsym Mod4+space exec podium control key space"))
        #expect(lines.contains("bindsym Ctrl+Shift+Prior exec podium control key z"))
        #expect(lines.contains("bindsym Ctrl+Mod1+minus exec podium control key '-'"))
        #expect(lines.contains("bindsym Ctrl+Mod1+r exec podium control key r"))
        #expect(lines.contains("bindsym Ctrl+Mod1+Shift+r exec podium control key p"))
        #expect(lines.last == "bindsym Ctrl+Mod1+l exec podium control key l")
        #expect(try ["blank", "white", "pause", "faster", "slower"].map { try action($0).command }
                == [.blank(.black), .blank(.white), .pause, .frameRate(1), .frameRate(-1)])
    }

    /// The GlobalShortcuts portal takes triggers as the XDG shortcuts spec writes them.
    @Test func portalTriggersAreWrittenAsTheShortcutsSpecSays() throws {
        let keys = try Hotkeys(changes: ["pause=Super+F5", "zoom=Ctrl+Shift+PageDown", "layout=Alt+Space"])
        let triggers = Dictionary(uniqueKeysWithValues: keys.bindings.map { ($0.action, $0.key.portalTrigger) })
        #expect(try triggers[action("blank")] == "CTRL+ALT+b")
        #expect(try triggers[action("pause")] == "LOGO+F5")
        #expect(try triggers[action("zoom")] == "CTRL+SHIFT+Next")
        #expect(try triggers[action("layout")] == "ALT+space")
        #expect(try triggers[action("faster")] == "CTRL+ALT+equal")
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
        #expect(try keys.action(for: Hotkey(parsing: "Super+F5")) == action("blank"))
        #expect(keys.action(for: try Hotkey(parsing: "Ctrl+Alt+B")) == nil)
        let pen = try Hotkeys(changes: ["pen=Ctrl+Alt+P"])
        #expect(try pen.action(for: Hotkey(parsing: "Ctrl+Alt+P")) == action("pen"))
        let pause = try action("pause")
        #expect(!pen.bindings.contains { $0.action == pause } && pen.displaced.map(\.action) == [pause])
        #expect(pen.summary.hasSuffix("; pause has none (Ctrl+Alt+P is pen's)"), "\(pen.summary)")
        #expect(throws: OptionParseError("Ctrl+Alt+Q is both zoom and pen")) {
            try Hotkeys(changes: ["pen=Ctrl+Alt+Q", "zoom=Ctrl+Alt+Q"])
        }
        #expect(throws: OptionParseError.self) { try Hotkeys(changes: ["blank"]) }
    }
}
