import Foundation
import PodiumTestSupport
import Testing

/// `tcp://…?listen` serves clients that come and go: each starts on a keyframe and decodes without
/// an error, none of them ends the run, and one past `?max=` is turned away.
@Suite struct ListenerTests {
    @Test func threeViewersComeAndGoAndAFourthIsTurnedAway() throws {
        let server = try XvfbServer(width: 320, height: 240)
        let scene = try Tools.scene(on: server.display)
        defer { _ = try? scene.interrupt() }
        let folder = try Tools.temporaryFolder()
        let recording = folder.appendingPathComponent("all.mkv").path
        let port = Tools.freePort()
        let run = try Tools.start(Tools.podium.path, ["stream", "--display", server.display, "--duration", "8s",
                                                     "--keyint", "1s", "--to", "tcp://127.0.0.1:\(port)?listen&max=3",
                                                     "--to", recording])
        try run.waitForStderr(containing: "capturing")
        // Joining 0, 1 and 2 s after the start, for 4, 1.5 and 3 s.
        var viewers: [(RunningCommand, String)] = []
        for (index, seconds) in ["4", "1.5", "3"].enumerated() {
            let output = folder.appendingPathComponent("viewer\(index).ts").path
            let viewer = try Tools.start("ffmpeg", ["-v", "error", "-y", "-i", "tcp://127.0.0.1:\(port)", "-t", seconds,
                                                    "-c", "copy", output])
            viewers.append((viewer, output))
            try run.waitForStderr(containing: "joined", times: index + 1)
            Thread.sleep(forTimeInterval: 1)
        }
        let turnedAway = try Tools.run("ffmpeg", ["-v", "error", "-i", "tcp://127.0.0.1:\(port)", "-t", "1",
                                                  "-f", "null", "-"])
        #expect(turnedAway.status != 0, "a fourth viewer with ?max=3 gets nothing")
        #expect(run.isRunning)
        for (viewer, output) in viewers {
            let result = try viewer.wait(timeout: 30)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
            let decoded = try Tools.run("ffmpeg", ["-v", "error", "-i", output, "-f", "null", "-"])
            #expect(decoded.status == 0 && decoded.stderr.isEmpty, "decodes without an error: \(decoded.stderr)")
            let packets = try Tools.run("ffprobe", ["-v", "error", "-select_streams", "v:0",
                                                    "-show_entries", "packet=flags", "-of", "csv=p=0", output])
            #expect(packets.stdout.hasPrefix("K"), "starts on a keyframe")
            #expect(try Tools.probe(output).frames >= 30, "\(output)")
        }
        let result = try run.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "joined").count - 1 == 3)
        #expect(result.stderr.components(separatedBy: " left after ").count - 1 == 3, "\(result.stderr)")
        #expect(result.stderr.contains("refused: 3 watching already"))
        // Two of them overlap for 2.5 s: the once-a-second statistics line counts them.
        #expect(result.stderr.contains("  2 watching"), "\(result.stderr)")
        #expect(try Tools.probe(recording).frames >= 180, "the recording went on throughout")
    }
}
