import Foundation
import PodiumTestSupport
import Testing

/// A recording with sound killed mid-run (`kill -9`, which only a process shows): each
/// container's sound still ends with its picture. The rest of `--audio` runs in the tests'
/// process (PodiumCLIRunTests' `SoundTests`).
@Suite struct KilledSoundTests {
    let desk: PrivateDesk

    init() throws { desk = try PrivateDesk() }

    /// `kill -9` mid-run: each container's sound plays to where its picture ends (within the
    /// muxer's interleaving, a few packets), and is the tone.
    @Test func aKilledRecordingsSoundEndsWithItsPicture() throws {
        let sound = try SoundServer(tone: 1_000)
        let scene = try Tools.scene(on: desk.display.display)
        defer { _ = try? scene.interrupt() }
        let outputs = ["killed.mkv", "killed.mp4", "killed.ts"].map(desk.path)
        let run = try Tools.start(Tools.podium.path, ["stream", "--audio"] + outputs.flatMap { ["--to", $0] },
                                  environment: sound.environment.merging(["DISPLAY": desk.display.display]) { $1 })
        try run.waitForStderr(containing: "audio -", timeout: 20)
        Thread.sleep(forTimeInterval: 2.5)
        run.signal(SIGKILL)
        _ = try? run.wait(timeout: 10)
        for output in outputs {
            let picture = try streamEnd(output, stream: "v:0")
            let heard = try streamEnd(output, stream: "a:0")
            #expect(picture >= 1.5, "\(output): the picture plays \(picture) s")
            #expect(abs(heard - picture) <= 0.3, "\(output): sound ends at \(heard) s, the picture at \(picture) s")
            let samples = try Tools.decodeSound(output)
            let middle = samples[samples.count / 4..<samples.count * 3 / 4]
            #expect(Tools.typicalTonePower(near: 1_000, in: middle) > 1e-3
                    && abs(Tools.dominantFrequency(middle) - 1_000) <= 10,
                    "\(output): \(Tools.describeTone(near: 1_000, in: middle))")
        }
    }

    /// Where the last packet of `stream` (`v:0`, `a:0`) of `path` ends, in seconds.
    func streamEnd(_ path: String, stream: String) throws -> Double {
        let packets = try Tools.run("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries",
                                                "packet=pts_time,duration_time", "-of", "csv=p=0", path])
        let ends = packets.stdout.split(separator: "\n").compactMap { line -> Double? in
            let fields = line.split(separator: ",").compactMap { Double($0) }
            return fields.isEmpty ? nil : fields.reduce(0, +)
        }
        return ends.max() ?? 0
    }
}
