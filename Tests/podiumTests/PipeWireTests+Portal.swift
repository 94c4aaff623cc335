import Foundation
import PodiumTestSupport
import Testing

/// `--source portal`: the ScreenCast portal's D-Bus exchange against `Scripts/mock-portal` (the
/// real portal needs a GPU here), which shares a real PipeWire node GStreamer provides; the
/// pictures then come through the same real PipeWire as `--source pipewire:NODE`'s.
extension PipeWireTests {
    /// The environment of a run that reaches `portal`, keeping its choice in `config`.
    func environment(_ portal: MockPortal, config: URL) -> [String: String] {
        environment.merging(portal.environment) { $1 }.merging(["XDG_CONFIG_HOME": config.path]) { $1 }
    }

    /// The options of the last SelectSources the portal took.
    func selected(_ portal: MockPortal) -> [String: Any] {
        portal.requests().last { $0["request"] as? String == "SelectSources" }?["options"] as? [String: Any] ?? [:]
    }

    /// A portal sharing a new node of `colour`, as a desktop makes one for each session (and as
    /// GStreamer's provider takes a few seconds to serve again after a consumer leaves).
    func share(colour: String, cursorModes: Int = 7) throws -> (producer: RunningCommand, portal: MockPortal) {
        let (producer, node) = try server.provideVideo(colour: colour,
                                                       name: "podium-test-shared-\(UUID().uuidString.prefix(8))")
        return (producer, try MockPortal(node: node, pipewire: server.folder, cursorModes: cursorModes))
    }

    @Test func thePortalSharesAScreenAndTheChoiceIsRememberedUntilForgotten() throws {
        let config = folder.appendingPathComponent("config")
        let recording = folder.appendingPathComponent("shared.mkv").path
        let (producer, portal) = try share(colour: "336699")
        let first = try Tools.podium(["stream", "--source", "portal", "--to", recording, "-t", "2s"],
                                     environment: environment(portal, config: config))
        _ = try? producer.interrupt(timeout: 5)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("asking the desktop what to share: choose in its dialog"), "\(first.stderr)")
        #expect(first.stderr.contains("capturing the monitor shared by the portal at 30 fps"), "\(first.stderr)")
        #expect(portal.requests().map { $0["request"] as? String ?? "" }.prefix(4)
                == ["CreateSession", "SelectSources", "Start", "OpenPipeWireRemote"])
        var options = selected(portal)
        // The pointer apart, as metadata, where the desktop offers it.
        #expect(options["persist_mode"] as? Int == 2 && options["cursor_mode"] as? Int == 4, "\(options)")
        #expect(options["restore_token"] == nil, "nothing to restore the first time")
        let (frames, coloured) = try framesAndColoured(recording, red: 0x33, green: 0x66, blue: 0x99)
        #expect(frames >= 20 && frames == coloured, "\(coloured) of \(frames) frames the shared node's colour")

        // The choice is kept for its owner's eyes only, and never said.
        let kept = config.appendingPathComponent("podium/portal-choice")
        let token = try String(contentsOf: kept, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let mode = try FileManager.default.attributesOfItem(atPath: kept.path)[.posixPermissions] as? Int
        #expect(token.hasPrefix("mock-choice-") && mode == 0o600, "\(token) \(String(mode ?? 0, radix: 8))")
        #expect(!first.stderr.contains(token) && !first.stdout.contains(token))

        // The next run hands it back: no dialog; the portal's new token is kept in its place.
        let (again, portalAgain) = try share(colour: "336699")
        let second = try Tools.podium(["stream", "--source", "portal", "--to", recording, "--overwrite", "-t", "1s"],
                                      environment: environment(portalAgain, config: config))
        _ = try? again.interrupt(timeout: 5)
        #expect(second.status == 0 && !second.stderr.contains("asking"), "\(second.stderr)")
        #expect(selected(portalAgain)["restore_token"] as? String == token)
        let renewed = try String(contentsOf: kept, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(renewed != token && renewed.hasPrefix("mock-choice-"))

        // --forget-choice asks again; --no-cursor asks for the pointer hidden where there is no metadata.
        let (last, lastPortal) = try share(colour: "336699", cursorModes: 1 | 2)
        defer { _ = try? last.interrupt(timeout: 5) }
        let third = try Tools.podium(["stream", "--source", "portal", "--forget-choice", "--no-cursor", "--to",
                                      recording, "--overwrite", "-t", "1s"],
                                     environment: environment(lastPortal, config: config))
        #expect(third.status == 0 && third.stderr.contains("asking the desktop"), "\(third.stderr)")
        options = selected(lastPortal)
        #expect(options["restore_token"] == nil && options["cursor_mode"] as? Int == 1, "\(options)")
    }

    /// With no source named, a Wayland session whose compositor cannot copy its outputs (here: not
    /// one that answers) is captured through the portal, and the start line says so.
    @Test func aWaylandSessionWithoutScreencopyIsCapturedThroughThePortal() throws {
        let (producer, portal) = try share(colour: "00ff00")
        defer { _ = try? producer.interrupt(timeout: 5) }
        let session = ["DISPLAY": "", "WAYLAND_DISPLAY": "wayland-podium-none"]
        let recording = folder.appendingPathComponent("session.mkv").path
        let run = try Tools.podium(["stream", "--to", recording, "-t", "1s"],
                                   environment: environment(portal, config: folder.appendingPathComponent("c"))
                                       .merging(session) { $1 })
        #expect(run.status == 0 && run.stderr.contains("capturing the monitor shared by the portal"), "\(run)")
        #expect(run.stderr.contains("does not copy its outputs: sharing through the desktop's portal"))
        let (frames, coloured) = try framesAndColoured(recording, red: 0, green: 0xff, blue: 0)
        #expect(frames >= 10 && frames == coloured, "\(coloured) of \(frames) frames the shared node's colour")
    }

    /// `podium bench` on what the portal shares: one session (one dialog) for the whole sweep.
    @Test func benchMeasuresThePortalsStreamAtEachRate() throws {
        let (producer, portal) = try share(colour: "3366ff")
        defer { _ = try? producer.interrupt(timeout: 5) }
        let bench = try Tools.podium(["bench", "--source", "portal", "--fps", "10,20", "--seconds", "2",
                                      "--format", "csv"],
                                     environment: environment(portal, config: folder.appendingPathComponent("c")))
        #expect(bench.status == 0, "\(bench.stderr)")
        let rows = bench.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
        #expect(rows.map { $0.first.map(String.init) } == ["10", "20"], "\(bench.stdout)")
        #expect(portal.requests().filter { $0["request"] as? String == "Start" }.count == 1)
    }

    /// A cancelled dialog, a portal that refuses, a bus without a portal: one line each, the
    /// right code, and nothing created.
    @Test(arguments: [("cancel", false, 77, "the desktop's dialog was cancelled: nothing was shared"),
                      ("fail", false, 69, "the desktop portal refused to share the screen (Start answered 2)"),
                      ("ok", true, 69, "no desktop portal on the session bus")])
    func aPortalThatSharesNothingEndsTheRunBeforeAnythingIsCreated(answer: String, absent: Bool, status: Int32,
                                                                  said: String) throws {
        let portal = try MockPortal(answer: answer, absent: absent)
        let output = folder.appendingPathComponent("never-\(answer)-\(absent).mkv").path
        let run = try Tools.podium(["stream", "--source", "portal", "--to", output],
                                   environment: environment(portal, config: folder.appendingPathComponent("c")))
        #expect(run.status == status && run.stderr.contains("podium: \(said)"), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// Ctrl-C while the desktop's dialog waits for the user ends the run at once.
    @Test func ctrlCWhileTheDialogIsOpenEndsTheRun() throws {
        let portal = try MockPortal(answer: "never")
        let output = folder.appendingPathComponent("undecided.mkv").path
        let run = try Tools.start(Tools.podium.path, ["stream", "--source", "portal", "--to", output],
                                  environment: environment(portal, config: folder.appendingPathComponent("c")))
        try run.waitForStderr(containing: "choose in its dialog")
        Thread.sleep(forTimeInterval: 0.5)
        run.signal(SIGINT)
        let result = try run.wait(timeout: 5)
        #expect(result.status == 130 && result.stderr.contains("stopped while the desktop asked"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// The user stops sharing in the desktop's indicator: the run ends with its recording whole.
    @Test func theDesktopStoppingTheShareEndsTheRunWithItsRecordingWhole() throws {
        let (producer, portal) = try share(colour: "ffcc00")
        defer { _ = try? producer.interrupt(timeout: 5) }
        let (result, decodes) = try Tools.streamLosingTheSource(
            ["--source", "portal"], recording: folder.appendingPathComponent("stopped.mkv").path,
            environment: environment(portal, config: folder.appendingPathComponent("c"))) { portal.stopSharing() }
        #expect(result.status == 69 && result.stderr.contains("the desktop stopped sharing the monitor"),
                "\(result.stderr)")
        #expect(decodes)
    }
}

/// Global keys through the desktop's GlobalShortcuts portal (GNOME's and KDE's way): asked for as
/// the XDG shortcuts spec writes them, each press acting on the run as the key does.
extension PipeWireTests {
    @Test func globalKeysThroughTheDesktopsShortcutsPortal() throws {
        let (producer, node) = try server.provideVideo(colour: "336699", name: "podium-test-keys")
        defer { _ = try? producer.interrupt(timeout: 5) }
        let portal = try MockPortal(pipewire: server.folder, shortcuts: "ok")
        let recording = folder.appendingPathComponent("keys.mkv").path
        let run = try Tools.start(Tools.podium.path, ["stream", "--source", "pipewire:\(node)", "--hotkeys",
                                                      "--to", recording, "-t", "6s"],
                                  environment: environment.merging(portal.environment) { $1 })
        try run.waitForStderr(containing: "global keys, as the desktop bound them: pause CTRL+ALT+p, blank CTRL+ALT+b")
        Thread.sleep(forTimeInterval: 1.5)
        try portal.press(["white"])
        try run.waitForStderr(containing: "screen shown → white, by global key")
        Thread.sleep(forTimeInterval: 2)
        try portal.press(["white"])
        try run.waitForStderr(containing: "screen white → shown, by global key")
        let result = try run.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let (levels, white) = try Tools.greyLevels(recording) { $0 > 230 }
        let span = try #require(white, "no white frame: \(levels)")
        #expect(abs(span.upperBound - span.lowerBound - 2) < 0.6, "white for as long as it was blank: \(levels)")
        #expect(levels.contains { $0.time < span.lowerBound && $0.mean < 150 }
                && levels.contains { $0.time >= span.upperBound && $0.mean < 150 },
                "the node before and after: \(levels)")
        let bind = portal.requests().first { $0["request"] as? String == "BindShortcuts" }
        let asked = bind?["shortcuts"] as? [[String: Any]] ?? []
        #expect(asked.map { $0["id"] as? String ?? "" } == ["pause", "blank", "white", "highlight", "zoom", "pen",
                                                           "faster", "slower", "mark", "record", "record-pause",
                                                           "layout"])
        #expect(asked.first?["preferred_trigger"] as? String == "CTRL+ALT+p", "\(asked)")
    }

    /// A desktop without the portal: said in one line, and the run goes on with the window's keys.
    @Test func aDesktopWithoutTheShortcutsPortalIsSaidAndTheRunGoesOn() throws {
        let (producer, node) = try server.provideVideo(colour: "336699", name: "podium-test-nokeys")
        defer { _ = try? producer.interrupt(timeout: 5) }
        let portal = try MockPortal(pipewire: server.folder)
        let recording = folder.appendingPathComponent("nokeys.mkv").path
        let run = try Tools.podium(["stream", "--source", "pipewire:\(node)", "--hotkeys", "--to", recording,
                                    "-t", "2s"], environment: environment.merging(portal.environment) { $1 })
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("podium: global keys: the desktop portal has no global shortcuts"), "\(run.stderr)")
        #expect(try Tools.probe(recording).frames >= 30)
    }

    /// `podium extend` on a Wayland desktop that is neither sway nor GNOME asks its portal for a
    /// virtual monitor (KDE Plasma's makes them), of the size the desktop chooses; a portal that
    /// makes none is said, with what Podium needs.
    @Test func extendAsksTheDesktopsPortalForAVirtualMonitor() throws {
        let config = folder.appendingPathComponent("config")
        let (recording, never) = (folder.appendingPathComponent("virtual.mkv").path,
                                  folder.appendingPathComponent("never.mkv").path)
        let (producer, node) = try server.provideVideo(colour: "336699",
                                                       name: "podium-test-virtual-\(UUID().uuidString.prefix(8))")
        defer { _ = try? producer.interrupt(timeout: 5) }
        let portal = try MockPortal(node: node, pipewire: server.folder, sourceTypes: 7)
        let run = try Tools.podium(["extend", "--display", "wayland-podium-none", "--to", recording, "-t", "2s"],
                                   environment: environment(portal, config: config))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(selected(portal)["types"] as? Int == 4, "\(selected(portal))")
        #expect(run.stderr.contains("the desktop chose the monitor's size itself: 640x360, not 1920x1080"),
                "\(run.stderr)")
        let (frames, coloured) = try framesAndColoured(recording, red: 0x33, green: 0x66, blue: 0x99)
        #expect(frames >= 20 && frames == coloured, "\(coloured) of \(frames) frames the virtual monitor's colour")

        let without = try MockPortal(node: node, pipewire: server.folder)
        let refused = try Tools.podium(["extend", "--display", "wayland-podium-none", "--to", never, "-t", "1s"],
                                       environment: environment(without, config: config))
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(refused.stderr.contains("or a portal that makes virtual monitors (KDE Plasma's); here, the desktop "
                                        + "portal shares no virtual monitors"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: never))
    }
}
