import Foundation
import PodiumTestSupport
import Testing

/// `--replay`: the last seconds of a run kept as it goes, and saved while it goes on.
extension TuneLiveTests {
    /// Each packet of `stream` (`v`, `a`) of `file` as it is stored: its flags and its bytes' hash.
    func storedPackets(_ file: String, stream: String) throws -> [(keyframe: Bool, hash: String)] {
        let result = try Tools.run("ffprobe", ["-v", "error", "-select_streams", "\(stream):0", "-show_data_hash",
                                               "MD5", "-show_entries", "packet=flags,data_hash", "-of", "csv=p=0",
                                               file])
        return result.stdout.split(separator: "\n").map { line in
            let fields = line.split(separator: ",")
            return (fields.first?.hasPrefix("K") == true, String(fields.last ?? ""))
        }
    }

    /// With a megabyte of memory most of what is kept is spilled to a temporary file; each save is,
    /// packet for packet, the end of a recording of the same run made beside it, from a keyframe,
    /// with its sound; the temporary file has no name and is gone with the run.
    @Test func aSaveIsTheEndOfTheRunFromAKeyframeSpilledOrNot() async throws {
        let sound = try SoundServer(tone: 1_000)
        defer { sound.stop() }
        let scene = try Tools.scene("video", on: server.display)
        defer { _ = try? scene.interrupt() }
        let spill = folder.appendingPathComponent("spill")
        try FileManager.default.createDirectory(at: spill, withIntermediateDirectories: true)
        let whole = path("whole.mkv"), stats = path("replay.json")
        let run = ProgramRun.start([
            "stream", "--display", server.display, "--audio", "-b", "3M", "--keyint", "1s", "--replay", "5s",
            "--replay-memory", "1M", "--control", "--to", whole, "--stats-json", stats,
        ], environment: sound.environment.merging(["TMPDIR": spill.path]) { $1 })
        try await run.waitForStderr(containing: "capturing")
        func control(_ words: String...) async throws -> CommandResult {
            try await ProgramRun.podium(["control", "--socket", run.controlSocket] + words)
        }
        try await Task.sleep(for: .seconds(8))
        let last = path("last.mkv"), short = path("short.mkv")
        let saved = try await control("save", last)
        #expect(saved.status == 0 && saved.stdout.hasPrefix("replay last 0:0") && saved.stdout.hasSuffix(
            " → \(last), by control\n"), "\(saved)")
        #expect(try await control("save", "2s", short).status == 0)
        let again = try await control("save", last)
        #expect(again.status == 64 && again.stderr == "podium: save '\(last)': the file exists (a save never replaces "
                + "one); name a new file\n", "\(again)")
        let nameless = try FileManager.default.contentsOfDirectory(atPath: spill.path)
        #expect(nameless.isEmpty, "the spill file has no name: \(nameless)")
        try await Task.sleep(for: .seconds(1))
        let result = try await run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")

        let recorded = try storedPackets(whole, stream: "v").map(\.hash)
        for (file, least) in [(last, 5.0), (short, 2.0)] {
            let decoded = try Tools.run("ffmpeg", ["-v", "error", "-i", file, "-f", "null", "-"])
            #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(file): \(decoded.stderr)")
            let kept = try storedPackets(file, stream: "v")
            #expect(kept.first?.keyframe == true, "\(file) starts on a keyframe")
            let hashes = kept.map(\.hash)
            let start = recorded.firstIndex(of: hashes.first ?? "")
            let matches = start.map { Array(recorded.dropFirst($0).prefix(hashes.count)) == hashes } ?? false
            #expect(matches, "\(file): \(hashes.count) packets, the same as the recording's from \(start ?? -1)")
            let duration = try Tools.probe(file).duration ?? 0
            #expect(duration >= least && duration < least + 1.3, "\(file): \(duration) s, asked \(least) s")
            let tone = try Tools.decodeSound(file)
            #expect(Double(tone.count) / 48_000 > duration - 0.3, "\(file): its sound throughout")
        }
        // It ended a second after the second save: the longer save is the recording's last 6 s or so.
        let total = recorded.count
        let tail = try storedPackets(last, stream: "v").count
        let from = recorded.firstIndex(of: try storedPackets(last, stream: "v").first?.hash ?? "") ?? 0
        #expect(total - (from + tail) < 30 * 2, "the save ends at most 2 s before the run: \(total), \(from)+\(tail)")
        let samples = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n")
            .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .compactMap { $0["replay"] as? [String: Any] }
        #expect(samples.contains { ($0["spilledBytes"] as? Int ?? 0) > 500_000 }, "spilled: \(samples.suffix(2))")
        #expect(samples.allSatisfy { ($0["memoryBytes"] as? Int ?? .max) < 1_300_000 }, "memory held: \(samples)")
        #expect(samples.last?["saves"] as? Int == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: spill.path).isEmpty)
    }
}
