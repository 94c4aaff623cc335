import Foundation
import PodiumTestSupport
import Testing

/// The presenter's keys held for the whole X desktop (`--hotkeys`): pressed while another
/// program's window has the focus, they act on the run, and the recording shows it.
@Suite(.serialized, .programThreads) struct GlobalKeysTests {
    /// Ctrl+Alt+B sent by xdotool while another program's window has the focus under openbox: the
    /// recording goes black for as long as the blank lasted, and the run says each change came by
    /// a global key.
    @Test func ctrlAltBBlanksTheRecordingWhileAnotherWindowHasTheFocus() async throws {
        let server = try XvfbServer(width: 320, height: 240)
        try Painter(display: server.display).draw(TestPattern(width: 320, height: 240, seed: 9))
        // A desktop's window manager, which binds keys of its own (openbox: Ctrl+Alt and the arrows,
        // which the defaults leave to it).
        let manager = try WindowManager(display: server.display)
        defer { withExtendedLifetime(manager) {} }
        // A window of its own connection, which asks again to be shown: openbox drops a map request
        // that comes while it is still starting (a player's window once never showed).
        let notes = try TestWindow(display: server.display, title: "Notes", x: 80, y: 60, width: 160, height: 120,
                                   rgb: 0x3060C0)
        defer { withExtendedLifetime(notes) {} }
        try notes.waitUntilShown()
        let window = "\(notes.id)"
        try Tools.xdotool(server.display, "windowactivate", "--sync", window)

        let output = try Tools.temporaryFolder().appendingPathComponent("hotkeys.mkv").path
        let run = ProgramRun.start(["stream", "--display", server.display, "--hotkeys", "-t", "9s",
                                    "--to", output])
        try await run.waitForStderr(containing: "global keys: Ctrl+Alt with P pause, B blank")
        try await run.waitForStderr(containing: "capturing")
        try await Task.sleep(for: .seconds(2))
        try Tools.xdotool(server.display, "key", "ctrl+alt+b")
        try await run.waitForStderr(containing: "screen shown → black, by global key")
        try await Task.sleep(for: .seconds(2))
        try Tools.xdotool(server.display, "key", "ctrl+alt+b")
        try await run.waitForStderr(containing: "screen black → shown, by global key")
        let result = try await run.wait(timeout: 30)
        #expect(result.status == 0 && !result.stderr.contains("held by another program"), "\(result.stderr)")
        // The focus stayed with the player: the keys were Podium's without taking it.
        let focused = try Tools.start("xdotool", ["getwindowfocus"], environment: ["DISPLAY": server.display]).wait()
        #expect(focused.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == window, "\(focused)")

        let (levels, black) = try Tools.greyLevels(output) { $0 < 20 }
        let span = try #require(black, "no black frame: \(levels)")
        #expect(abs(span.upperBound - span.lowerBound - 2) < 0.6, "black for as long as it was blank: \(levels)")
        #expect(levels.contains { $0.time < span.lowerBound && $0.mean > 40 }
                && levels.contains { $0.time >= span.upperBound && $0.mean > 40 },
                "the screen before and after: \(levels)")
    }

    /// A second run asking for the same keys finds them held by the first: it says so once for
    /// each, and runs on.
    @Test func keysHeldByAnotherProgramAreSaidAndTheRunGoesOn() async throws {
        let server = try XvfbServer(width: 320, height: 240)
        let folder = try Tools.temporaryFolder()
        let first = ProgramRun.start(["stream", "--display", server.display, "--hotkeys", "-t", "8s",
                                      "--to", folder.appendingPathComponent("first.mkv").path])
        defer { first.stop() }
        try await first.waitForStderr(containing: "global keys: Ctrl+Alt with P pause, B blank")
        let second = try await ProgramRun.podium(["stream", "--hotkey", "faster=Ctrl+Alt+F", "-t", "2s",
                                                  "--to", folder.appendingPathComponent("second.mkv").path],
                                      display: server.display)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("global keys: Ctrl+Alt+B (blank) is held by another program"),
                "\(second.stderr)")
        #expect(!second.stderr.contains("Ctrl+Alt+F (faster) is held"), "\(second.stderr)")
        #expect(second.stderr.contains("global keys: Ctrl+Alt with F faster\n"), "\(second.stderr)")
    }

    /// A keyboard map changed as the run goes (another layout, `xmodmap`): the keys are grabbed
    /// again where the new map puts them, and work there.
    @Test func aNewKeyboardMapIsFollowed() async throws {
        let server = try XvfbServer(width: 320, height: 240)
        let folder = try Tools.temporaryFolder()
        let run = ProgramRun.start(["stream", "--display", server.display, "--hotkeys", "-t", "20s",
                                    "--to", folder.appendingPathComponent("remap.mkv").path])
        defer { run.stop() }
        try await run.waitForStderr(containing: "global keys: Ctrl+Alt with P pause, B blank")
        // B moves to a key code nothing grabbed: only a grab made again catches it there.
        let moved = try Tools.start("xmodmap", ["-e", "keycode 56 = NoSymbol", "-e", "keycode 200 = b B"],
                                    environment: ["DISPLAY": server.display]).wait(timeout: 10)
        #expect(moved.status == 0, "\(moved)")
        try await Task.sleep(for: .seconds(0.5))
        try Tools.xdotool(server.display, "key", "ctrl+alt+b")
        try await run.waitForStderr(containing: "screen shown → black, by global key", timeout: 10)
    }
}
