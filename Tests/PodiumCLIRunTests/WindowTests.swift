import Foundation
import PodiumTestSupport
import Testing

/// `podium windows` and `--window`: a window drawn by another program on a display with a window
/// manager, listed, recorded while covered and resized, waited for when it closes, and the end
/// of the run with `--exit-when-gone`. Colours are checked in what ffmpeg decodes.
@Suite(.programThreads) struct WindowTests {
    static let red: UInt32 = 0xC00000
    static let green: UInt32 = 0x00A000

    /// A 640x480 display with openbox, and a red 200x150 window titled `Slides — Impress`.
    func slides() throws -> (XvfbServer, WindowManager, TestWindow) {
        let server = try XvfbServer(width: 640, height: 480)
        let manager = try WindowManager(display: server.display)
        let window = try TestWindow(display: server.display, title: "Slides — Impress", instance: "soffice",
                                    className: "libreoffice-impress", x: 40, y: 40, width: 200, height: 150,
                                    rgb: Self.red)
        try window.waitUntilShown()
        return (server, manager, window)
    }

    /// The share of the pixels of frame `index` of `path` (RGB) that are close to `rgb`.
    func share(of rgb: UInt32, in path: String, frame index: Int, width: Int, height: Int) throws -> Double {
        let pixels = try Tools.decodeFrame(path, index: index, pixelFormat: "rgb24")
        let target = [Int(rgb >> 16), Int(rgb >> 8 & 0xFF), Int(rgb & 0xFF)]
        var close = 0
        for start in stride(from: 0, to: width * height * 3, by: 3)
            where (0..<3).allSatisfy({ abs(Int(pixels[start + $0]) - target[$0]) < 24 }) {
            close += 1
        }
        return Double(close) / Double(width * height)
    }

    @Test func windowsListsTheWindowAsJSON() async throws {
        let (server, manager, window) = try slides()
        defer { withExtendedLifetime(manager) {} }
        let result = try await ProgramRun.podium(["windows", "--json"], display: server.display)
        #expect(result.status == 0, "\(result.stderr)")
        let listed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
        let entry = try #require(listed.first { $0["id"] as? String == window.hexID }, "\(result.stdout)")
        #expect(entry["title"] as? String == "Slides — Impress")
        #expect(entry["class"] as? String == "libreoffice-impress" && entry["instance"] as? String == "soffice")
        #expect(entry["width"] as? Int == 200 && entry["height"] as? Int == 150 && entry["mapped"] as? Bool == true)
        let text = try await ProgramRun.podium(["windows"], display: server.display)
        #expect(text.stdout.contains("\(window.hexID)  'Slides — Impress'  soffice/libreoffice-impress  200x150+"),
                "\(text.stdout)")
    }

    /// Covered by another window from the start, then resized: the recording shows the window's
    /// red, whole, then the smaller window letterboxed in the recording's size.
    @Test func aCoveredWindowIsRecordedAndItsResizeLetterboxed() async throws {
        let (server, manager, window) = try slides()
        defer { withExtendedLifetime(manager) {} }
        let cover = try TestWindow(display: server.display, title: "cover", x: 40, y: 40, width: 200, height: 150,
                                   rgb: 0x0000C0)
        try cover.waitUntilShown()
        let recording = try Tools.temporaryFolder().appendingPathComponent("slides.mkv").path
        let run = ProgramRun.start(["stream", "--display", server.display, "--window", "impress",
                                    "--no-cursor", "--duration", "30s", "--to", recording])
        try await run.waitForStderr(containing: "capturing window 'Slides — Impress' (\(window.hexID), 200x150) of "
                              + "\(server.display) with MIT-SHM at 30 fps")
        try await Task.sleep(for: .seconds(0.7))
        try Tools.xdotool(server.display, "windowsize", "\(window.id)", "100", "150")
        try await Task.sleep(for: .seconds(0.7))
        let result = try await run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try Tools.probe(recording)
        #expect(probe.width == 200 && probe.height == 150)
        #expect(try share(of: Self.red, in: recording, frame: 0, width: 200, height: 150) > 0.97)
        // 100x150 in 200x150: half the width, the rest black bars.
        let last = try share(of: Self.red, in: recording, frame: probe.frames - 1, width: 200, height: 150)
        #expect(last > 0.45 && last < 0.55, "\(last) of the last frame is red")
    }

    /// Closed: said once, waited for; a new window of that name is recorded; then the end.
    @Test func aClosedWindowIsWaitedForAndItsSuccessorRecorded() async throws {
        let (server, manager, window) = try slides()
        defer { withExtendedLifetime(manager) {} }
        let recording = try Tools.temporaryFolder().appendingPathComponent("slides.mkv").path
        let run = ProgramRun.start(["stream", "--display", server.display, "--window",
                                    "Slides — Impress", "--duration", "30s", "--to", recording])
        try await run.waitForStderr(containing: "capturing window")
        try await Task.sleep(for: .seconds(0.5))
        window.destroy()
        try await run.waitForStderr(containing: "window 'Slides — Impress' (\(window.hexID)) closed; "
                              + "waiting for a window named 'Slides — Impress'")
        let again = try TestWindow(display: server.display, title: "Slides — Impress", width: 200, height: 150,
                                   rgb: Self.green)
        try again.waitUntilShown()
        try await run.waitForStderr(containing: "capturing window 'Slides — Impress' (\(again.hexID)")
        try await Task.sleep(for: .seconds(0.5))
        let result = try await run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "closed;").count == 2, "said once: \(result.stderr)")
        let frames = try Tools.probe(recording).frames
        #expect(try share(of: Self.red, in: recording, frame: 0, width: 200, height: 150) > 0.97)
        #expect(try share(of: Self.green, in: recording, frame: frames - 1, width: 200, height: 150) > 0.97)
    }

    /// `--exit-when-gone`: the window's end is the run's, exit 0 and a finalized recording.
    @Test func exitWhenGoneEndsTheRunCleanly() async throws {
        let (server, manager, window) = try slides()
        defer { withExtendedLifetime(manager) {} }
        let recording = try Tools.temporaryFolder().appendingPathComponent("slides.mp4").path
        let run = ProgramRun.start(["stream", "--display", server.display, "--window",
                                    window.hexID, "--exit-when-gone", "--to", recording])
        try await run.waitForStderr(containing: "capturing window")
        try await Task.sleep(for: .seconds(1))
        window.destroy()
        let result = try await run.wait(timeout: 10)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("closed; ending the run, as asked"), "\(result.stderr)")
        let probe = try Tools.probe(recording)
        #expect(probe.frames >= 2 && (probe.duration ?? 0) > 0.8, "\(probe)")
    }

    /// `--window pick`: the window clicked (its frame, under the manager) is the client captured.
    @Test func pickTakesTheWindowClicked() async throws {
        let (server, manager, window) = try slides()
        defer { withExtendedLifetime(manager) {} }
        let run = ProgramRun.start(["stream", "--display", server.display, "--window", "pick",
                                    "--frames", "3", "--to",
                                    try Tools.temporaryFolder().appendingPathComponent("a.mkv").path])
        try await run.waitForStderr(containing: "click the window to capture")
        try await Task.sleep(for: .seconds(0.3))
        try Tools.xdotool(server.display, "mousemove", "--window", "\(window.id)", "50", "50", "click", "1")
        let result = try await run.wait(timeout: 20)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("capturing window 'Slides — Impress' (\(window.hexID), 200x150)"),
                "\(result.stderr)")
    }
}
