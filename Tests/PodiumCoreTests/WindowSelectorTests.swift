import PodiumCore
import Testing

/// What `--window` reads, and which window a name picks.
@Suite struct WindowSelectorTests {
    /// A name: the exact title first, then a part of a title in any case, then the class;
    /// several matches are refused with their ids.
    @Test func namesMatchTitlesThenPartsThenClasses() throws {
        let rect = PixelRect(x: 0, y: 0, width: 10, height: 10)
        let windows = [ClientWindow(id: 1, title: "Slides", instance: "soffice", className: "Impress", rect: rect),
                       ClientWindow(id: 2, title: "Slides — notes", className: "Impress", rect: rect),
                       ClientWindow(id: 3, title: "xterm", instance: "xterm", className: "XTerm", rect: rect)]
        #expect(try WindowSelector.name("Slides").select(from: windows).id == 1)
        #expect(try WindowSelector.name("NOTES").select(from: windows).id == 2)
        #expect(try WindowSelector.name("xterm").select(from: windows).id == 3)
        #expect(try WindowSelector(parsing: "0x3").select(from: windows).id == 3)
        let several = #expect(throws: PodiumError.self) { try WindowSelector.name("slides").select(from: windows) }
        #expect(several?.exitCode == .usage && several?.message.contains("(0x1)") == true,
                "\(String(describing: several))")
        let none = #expect(throws: PodiumError.self) { try WindowSelector.name("gimp").select(from: windows) }
        #expect(none?.exitCode == .unavailable && none?.message.contains("'xterm' (0x3)") == true)
        #expect(none?.subject == .window(.name("gimp")) && none?.message.contains("--window") == false)
        #expect(throws: OptionParseError.self) { try WindowSelector(parsing: "0xZZ") }
        #expect(throws: OptionParseError.self) { try WindowSelector(parsing: " ") }
    }
}
