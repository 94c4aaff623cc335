import Foundation
import PodiumTestSupport
import Testing

/// The remote (`--remote`), on a phone-sized headless Chromium: its preview is the viewer's, its
/// buttons send the control socket's requests, its chart draws the run's figures; its token is
/// its own.
extension WebViewerTests {
    @Test func theRemoteOnAPhoneActsOnTheRunWithinATenthOfASecond() throws {
        let server = try XvfbServer(width: 640, height: 360)
        let scene = try Tools.scene("slides", on: server.display)
        defer { _ = try? scene.interrupt() }
        let viewer = "http://127.0.0.1:\(Tools.freePort())"
        let served = try serve(viewer, display: server.display, seconds: 40, more: ["--remote"])
        defer { _ = try? served.run.interrupt() }
        try served.run.waitForStderr(containing: "/remote?token=")
        let remote = try #require(served.run.stderrSoFar.split(separator: "\n")
            .first { $0.contains("/remote?token=") }?.split(separator: " ").last.map(String.init))
        let remoteToken = String(remote.split(separator: "=").last ?? "")
        let viewerToken = String(served.link.split(separator: "=").last ?? "")
        #expect(!remoteToken.isEmpty && remoteToken != viewerToken)

        // A viewer's token opens no remote and sends nothing; a wrong one is refused, and the run goes on.
        #expect(try Tools.httpStatus("\(viewer)/remote?token=\(viewerToken)") == 403)
        #expect(try Tools.httpStatus("\(viewer)/remote") == 403)
        #expect(try Tools.httpStatus("\(viewer)/remote/control?token=\(viewerToken)",
                                     body: #"{"command":"key","value":"b"}"#) == 403)
        #expect(try Tools.httpStatus("\(viewer)/remote/control?token=nonsense", body: "{") == 403)
        // Its own token reaches its keys and the status only: no file of its choosing, no end to the run.
        let chosen = try Tools.temporaryFolder().appendingPathComponent("chosen.mkv").path
        for body in [#"{"command":"record","record":"start","file":"\#(chosen)"}"#, #"{"command":"key","value":"q"}"#] {
            let answer = try Tools.run("curl", ["-s", "--data", body, "\(viewer)/remote/control?token=\(remoteToken)"])
            #expect(answer.stdout.contains(#""ok":false"#), "\(body): \(answer.stdout)")
        }
        #expect(!FileManager.default.fileExists(atPath: chosen))

        let shot = try Tools.temporaryFolder().appendingPathComponent("remote.png").path
        let result = try Tools.run(Tools.repository.appendingPathComponent("Scripts/browse").path, [
            remote, "--size", "390x844", "--timeout", "30", "--screenshot", shot,
            "--until", "window.podium && window.podium.painted >= 10 && window.podiumRemote.samples.length >= 2",
            "--value", "window.podiumRemote", "--click", "[data-key=\"w\"]",
            "--then", "window.podiumRemote.answered >= 1",
        ], timeout: 60)
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        let page = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any] ?? [:]
        #expect((page["said"] as? String)?.contains("screen shown → white, by remote") == true, "\(page)")
        let answered = try #require(page["lastAnswerMs"] as? Double, "\(page)")
        #expect(answered <= 100, "the run answered a button in \(answered) ms")
        try served.run.waitForStderr(containing: "screen shown → white, by remote")
        #expect(FileManager.default.fileExists(atPath: shot))

        let ended = try served.run.interrupt()
        #expect(ended.status == 0, "\(ended.stderr)")
        // The remote's token is said once, in its link, and nowhere else: not in the statistics.
        #expect(ended.stderr.components(separatedBy: remoteToken).count == 2, "\(ended.stderr)")
        let stats = try String(contentsOfFile: served.stats, encoding: .utf8)
        #expect(!stats.contains(remoteToken))
        #expect(stats.contains(#""by":"remote""#), "the remote's change is a record of its own")
    }
}
