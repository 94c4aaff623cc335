import Foundation
import PodiumTestSupport
import Testing

/// A PipeWire video stream as the source (`--source pipewire:NODE`), the leg of the ScreenCast
/// portal that reads the pictures: a real PipeWire with WirePlumber (the tests' sound server),
/// and GStreamer's `pipewiresink` providing a video node of a known colour.
@Suite(.serialized) struct PipeWireTests {
    let server: SoundServer
    let folder: URL

    init() throws {
        server = try SoundServer()
        folder = try Tools.temporaryFolder()
    }

    /// What a client of this PipeWire needs.
    var environment: [String: String] { server.pipeWireEnvironment }

    @Test func aVideoNodeIsCapturedAtItsSizeInItsColours() throws {
        let (producer, node) = try server.provideVideo(colour: "336699", name: "podium-test-blue")
        defer { _ = try? producer.interrupt(timeout: 5) }
        let recording = folder.appendingPathComponent("node.mkv").path
        let run = try Tools.podium(["stream", "--source", "pipewire:\(node)", "--to", recording, "-t", "3s"],
                                   environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("capturing PipeWire node \(node) at 30 fps"), "\(run.stderr)")
        let probed = try Tools.probe(recording)
        #expect(probed.width == 640 && probed.height == 360, "\(probed)")
        let (frames, coloured) = try framesAndColoured(recording, red: 0x33, green: 0x66, blue: 0x99)
        #expect(frames >= 10 && frames == coloured, "\(coloured) of \(frames) frames the node's colour")
    }

    /// How many frames `recording` has, and how many are the colour asked for at their centre.
    func framesAndColoured(_ recording: String, red: Int, green: Int, blue: Int, within tolerance: Int = 6) throws
        -> (Int, Int) {
        let frames = try Tools.rgbFrames(recording, size: (width: 32, height: 18))
        let centre = (9 * 32 + 16) * 3
        let coloured = frames.filter { frame in
            zip((0..<3).map { Int(frame.pixels[centre + $0]) }, [red, green, blue]).allSatisfy {
                abs($0 - $1) < tolerance
            }
        }
        return (frames.count, coloured.count)
    }

    /// A producer faster than --fps is taken at --fps: frames skipped, never bursts.
    @Test func aFasterProducerIsTakenAtTheRunsRate() throws {
        let (producer, node) = try server.provideVideo(colour: "808080", name: "podium-test-fast", fps: 60)
        defer { _ = try? producer.interrupt(timeout: 5) }
        let recording = folder.appendingPathComponent("paced.mkv").path
        let run = try Tools.podium(["stream", "--source", "pipewire:\(node)", "--fps", "10", "--constant-fps",
                                    "--to", recording, "-t", "3s"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        // Never faster than 10 fps (a producer that stalls on a loaded machine leaves a longer gap).
        let times = try Tools.frameTimes(recording)
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        #expect((15...33).contains(times.count), "\(times.count) frames in 3 s at 10 fps")
        #expect(gaps.allSatisfy { $0 > 0.098 }, "every frame at least 0.1 s after the one before: \(gaps)")
        #expect(gaps.filter { abs($0 - 0.1) < 0.002 }.count >= gaps.count * 3 / 4, "mostly 0.1 s apart: \(gaps)")
    }

    /// A producer that says which rows changed (as the desktop's screen cast does): only those
    /// are converted, and the pictures are whole all the same.
    @Test func theProducersDamageIsAllThatIsConverted() throws {
        let (producer, node) = try server.provideVideo(named: "podium-test-damage", by: Tools.start(
            Tools.built("pipewire-damage-producer").path, ["podium-test-damage", "30"], environment: environment))
        defer { _ = try? producer.interrupt(timeout: 5) }
        let recording = folder.appendingPathComponent("damage.mkv").path
        let stats = folder.appendingPathComponent("damage.json").path
        let run = try Tools.podium(["stream", "--source", "pipewire:\(node)", "--to", recording, "-t", "3s",
                                    "--stats-json", stats], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        // A band 16 rows high moves 2 rows a frame down a picture 360 rows high.
        let samples = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["kind"] as? String == "interval" }.compactMap { $0["rowsConverted"] as? Double }
        #expect(samples.count >= 2 && samples.dropFirst().allSatisfy { $0 < 40 }, "rows converted a frame: \(samples)")
        // Every frame shows one band, where the picture had it: no row left behind.
        let frames = try Tools.rgbFrames(recording, size: (width: 640, height: 360))
        #expect(frames.count >= 60, "\(frames.count) frames")
        let bands = frames.map { frame in
            (0..<360).filter { Int(frame.pixels[($0 * 640 + 320) * 3]) > 192 }
        }
        #expect(bands.allSatisfy { (15...17).contains($0.count) && $0.last! - $0.first! == $0.count - 1 },
                "white rows a frame: \(bands.map(\.count))")
    }

    /// A stream that sends the pointer apart (cursor metadata, as a desktop's screen cast does):
    /// the recording has its picture, the highlight under it, and with `--zoom 2` the part around it.
    @Test func theHighlightAndTheZoomFollowThePointerTheStreamSends() throws {
        let (producer, node) = try server.provideVideo(named: "podium-test-pointer", by: Tools.start(
            Tools.built("pipewire-damage-producer").path, ["podium-test-pointer", "30", "pointer"],
            environment: environment))
        defer { _ = try? producer.interrupt(timeout: 5) }
        func recorded(_ flags: [String]) throws -> [UInt8] {
            let recording = folder.appendingPathComponent("pointer\(flags.count).mkv").path
            let run = try Tools.podium(["stream", "--source", "pipewire:\(node)", "--to", recording, "-t", "1s"]
                                       + flags, environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            return try #require(try Tools.rgbFrames(recording, size: (width: 640, height: 360)).last).pixels
        }
        func near(_ pixels: [UInt8], _ x: Int, _ y: Int, _ colour: [Int], within slack: Int = 12) -> Bool {
            (0..<3).allSatisfy { abs(Int(pixels[(y * 640 + x) * 3 + $0]) - colour[$0]) <= slack }
        }
        // The red square 16 pixels a side at (100, 100); 40 % of yellow over grey around it.
        let lit = try recorded(["--highlight-pointer"])
        #expect(near(lit, 108, 108, [255, 0, 0], within: 40) && near(lit, 125, 125, [179, 179, 77])
                && near(lit, 400, 300, [128, 128, 128]), "\(Array(lit[((125 * 640 + 125) * 3)...].prefix(3)))")
        // A quarter of the picture from (0, 10), twice the size: the square at (200, 180), 32 pixels a side.
        let zoomed = try recorded(["--zoom", "2"])
        #expect(near(zoomed, 216, 196, [255, 0, 0], within: 40) && near(zoomed, 180, 196, [128, 128, 128])
                && near(zoomed, 216, 240, [128, 128, 128]), "\(Array(zoomed[((196 * 640 + 216) * 3)...].prefix(3)))")
    }

    @Test func aProducerThatStopsIsWaitedForAndTheRecordingGoesOn() throws {
        let (producer, node) = try server.provideVideo(colour: "00ff00", name: "podium-test-green")
        let recording = folder.appendingPathComponent("waited.mkv").path
        let run = try Tools.start(Tools.podium.path, ["stream", "--source", "pipewire:\(node)", "--to", recording],
                                  environment: environment)
        try run.waitForStderr(containing: "capturing")
        Thread.sleep(forTimeInterval: 1.5)
        _ = try producer.interrupt(timeout: 5)
        try run.waitForStderr(containing: "PipeWire node \(node) paused: its producer stopped sending", timeout: 10)
        Thread.sleep(forTimeInterval: 1.5)
        let result = try run.interrupt()
        #expect(result.status == 0, "\(result.stderr)")
        // The last picture held to the end: the recording lasts the run.
        let probed = try Tools.probe(recording)
        #expect((probed.duration ?? 0) > 2.5, "\(probed)")
        let decoded = try Tools.run("ffmpeg", ["-v", "error", "-i", recording, "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded)")
    }

    @Test func pipeWireGoingAwayEndsTheRunWithItsRecordingWhole() throws {
        let (producer, node) = try server.provideVideo(colour: "ff0000", name: "podium-test-red")
        defer { _ = try? producer.interrupt(timeout: 5) }
        let (result, decodes) = try Tools.streamLosingTheSource(
            ["--source", "pipewire:\(node)"], recording: folder.appendingPathComponent("lost.mkv").path,
            environment: environment) { server.stop() }
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("the PipeWire stream PipeWire node \(node) ended"), "\(result.stderr)")
        #expect(decodes)
    }

    @Test func aNodeThatIsNotThereOrNotANumberIsRefused() throws {
        let output = folder.appendingPathComponent("never.mkv").path
        let word = try Tools.podium(["stream", "--source", "pipewire:camera", "--to", output], environment: environment)
        #expect(word.status == 64 && word.stderr.contains("pipewire:camera"), "\(word)")
        let nobody = try Tools.podium(["stream", "--source", "pipewire:99999", "--to", output],
                                      environment: environment)
        #expect(nobody.status == 69 && nobody.stderr.contains("PipeWire node 99999 sent no picture"), "\(nobody)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
