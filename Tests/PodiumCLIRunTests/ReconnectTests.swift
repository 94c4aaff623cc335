import Foundation
import PodiumTestSupport
import Testing

/// `tcp://HOST:PORT` connects to a peer that may come late, go away and come back: Podium keeps
/// trying with backoff, resumes on a keyframe, and the recording beside it misses nothing.
@Suite(.programThreads) struct ReconnectTests {
    @Test func aTCPPeerThatComesLateLeavesAndReturnsGetsTwoDecodableStreams() async throws {
        let server = try XvfbServer(width: 320, height: 240)
        let scene = try Tools.scene(on: server.display)
        defer { _ = try? scene.interrupt() }
        let folder = try Tools.temporaryFolder()
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let port = Tools.freePort()
        let url = "tcp://127.0.0.1:\(port)"
        let run = ProgramRun.start(["stream", "--display", server.display, "--keyint", "1s",
                                    "--to", url, "--to", path("all.mkv"),
                                    "--stats-json", path("stats.jsonl")])
        try await run.waitForStderr(containing: "capturing")
        // The peer starts 3 s after Podium and takes 3 s; a new one starts 2 s after it stopped.
        try await Task.sleep(for: .seconds(3))
        let first = try Tools.run("ffmpeg", ["-v", "error", "-y", "-i", url + "?listen", "-t", "3", "-c", "copy",
                                             path("first.ts")], timeout: 30)
        try await run.waitForStderr(containing: "reconnecting")
        try await Task.sleep(for: .seconds(2))
        let second = try Tools.run("ffmpeg", ["-v", "error", "-y", "-i", url + "?listen", "-t", "3", "-c", "copy",
                                              path("second.ts")], timeout: 30)
        let result = try await run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")
        for (reception, name) in [(first, "first.ts"), (second, "second.ts")] {
            #expect(reception.status == 0 && reception.stderr.isEmpty, "\(reception.stderr)")
            let decoded = try Tools.run("ffmpeg", ["-v", "error", "-i", path(name), "-f", "null", "-"])
            #expect(decoded.status == 0 && decoded.stderr.isEmpty,
                    "\(name) decodes without an error: \(decoded.stderr)")
            let flags = try Tools.run("ffprobe", ["-v", "error", "-select_streams", "v:0",
                                                  "-show_entries", "packet=flags",
                                                  "-of", "csv=p=0", path(name)])
            #expect(flags.stdout.hasPrefix("K"), "\(name) starts on a keyframe")
            // Three seconds of the stream, in as many frames as capture made then: 30 a second on an
            // idle machine, fewer with the main group's suites on two cores (a fresh-clone run took
            // under 80), the test being about the peer's comings and goings.
            let received = try Tools.probe(path(name))
            #expect((received.duration ?? 0) >= 2.7 && received.frames >= 45,
                    "\(name): \(received.frames) frames in \(received.duration ?? 0) s")
        }
        #expect(result.stderr.contains("trying again in 1 s"), "\(result.stderr)")
        #expect(result.stderr.contains("\(url): connected after"), "\(result.stderr)")
        #expect(result.stderr.contains("\(url): connected again after"), "\(result.stderr)")
        // The stats said so while it was down, and the summary counts both outages.
        let samples = try String(contentsOfFile: path("stats.jsonl"), encoding: .utf8).split(separator: "\n")
            .map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
        func tcp(_ sample: [String: Any]) -> [String: Any]? {
            (sample["sinks"] as? [[String: Any]])?.first { $0["url"] as? String == url }
        }
        #expect(samples.contains { tcp($0)?["downSeconds"] is Double }, "an interval while reconnecting")
        let summary = try #require(samples.last)
        // Not there at the start, gone once; and gone again if Podium saw the second peer stop
        // before it was interrupted.
        let outages = tcp(summary)?["outages"] as? Int ?? 0
        #expect((2...3).contains(outages), "\(outages) outages")
        // Every frame encoded is in the recording, outages or not.
        let encoded = try #require(summary["frames"] as? Int)
        #expect(encoded >= 30 * 10, "about 3 + 3 + 2 + 3 s at 30 fps")
        #expect(try Tools.probe(path("all.mkv")).frames == encoded)
    }
}
