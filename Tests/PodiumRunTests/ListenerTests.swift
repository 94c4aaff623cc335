import Foundation
import PodiumCore
import PodiumRun
import PodiumTestSupport
import Synchronization
import Testing

extension InProcess {
    /// `tcp://…?listen` serves clients that come and go: each starts on a keyframe and decodes without
    /// an error, none of them ends the run, and one past `?max=` is turned away.
    @Suite struct ListenerTests {
        @Test func threeViewersComeAndGoAndAFourthIsTurnedAway() async throws {
            let server = try XvfbServer(width: 320, height: 240)
            let scene = try Tools.scene(on: server.display)
            defer { _ = try? scene.interrupt() }
            let folder = try Tools.temporaryFolder()
            let recording = folder.appendingPathComponent("all.mkv").path
            let port = Tools.freePort()
            var encode = EncodingDefaults()
            encode.keyframeInterval = .seconds(1)
            let run = try await InProcessRun(display: server.display,
                                             to: ["tcp://127.0.0.1:\(port)?listen&max=3", recording],
                                             duration: .seconds(12), encode: encode)
            let running = await run.start()
            let clients = run.counters.sinks[0]
            // Joining 0, 1 and 2 s after the start, for 6, 4 and 3 s: all three are there when the
            // fourth comes, a second after the third, however late a loaded machine starts them.
            var viewers: [(RunningCommand, String)] = []
            var mostAtOnce = 0
            for (index, seconds) in ["6", "4", "3"].enumerated() {
                let output = folder.appendingPathComponent("viewer\(index).ts").path
                let viewer = try Tools.start("ffmpeg", ["-v", "error", "-y", "-i", "tcp://127.0.0.1:\(port)",
                                                        "-t", seconds, "-c", "copy", output])
                viewers.append((viewer, output))
                let deadline = Date(timeIntervalSinceNow: 20)
                while run.log.count("joined") <= index && Date() < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                mostAtOnce = max(mostAtOnce, clients.clientCount ?? 0)
                try await Task.sleep(for: .seconds(1))
                mostAtOnce = max(mostAtOnce, clients.clientCount ?? 0)
            }
            let turnedAway = try Tools.run("ffmpeg", ["-v", "error", "-i", "tcp://127.0.0.1:\(port)", "-t", "1",
                                                      "-f", "null", "-"])
            #expect(turnedAway.status != 0, "a fourth viewer with ?max=3 gets nothing")
            #expect(!run.session.run.isStopping)
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
            #expect(await running.value == nil)
            #expect(run.log.count("joined") == 3)
            #expect(run.log.count(" left after ") == 3, "\(run.log.messages)")
            #expect(run.log.count("refused: 3 watching already") == 1)
            #expect(mostAtOnce >= 2, "two of them overlap for 2.5 s")
            #expect(try Tools.probe(recording).frames >= 180, "the recording went on throughout")
        }
    }
}
