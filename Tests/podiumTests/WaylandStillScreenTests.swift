import Foundation
import PodiumTestSupport
import Testing

/// A sway output's known colours come back through the encoders, and its still screen costs next
/// to nothing: the CPU the stats say is the process's, so the run is a process of its own.
@Suite struct WaylandStillScreenTests {
    let sway: SwayServer
    let folder: URL

    init() throws {
        sway = try SwayServer(width: 1280, height: 720)
        folder = try Tools.temporaryFolder()
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    @Test func knownColoursComeBackAndAStillScreenCostsNothing() throws {
        try sway.paint("#336699")
        let recording = path("colours.mkv"), stats = path("colours.json")
        let run = try Tools.start(Tools.podium.path, ["stream", "--source", "wlr", "--display", sway.display,
                                                      "--to", recording, "-t", "6s", "--stats-json", stats])
        try run.waitForStderr(containing: "capturing")
        Thread.sleep(forTimeInterval: 3)
        try sway.paint("#ff0000")
        let result = try run.wait()
        #expect(result.status == 0, "\(result.stderr)")

        // The colours, within what 4:2:0 and x264 make of them; the change in the next frames.
        let colours = try Tools.centreColours(recording)
        let before = colours.filter { $0.time < 2.5 }, after = colours.filter { $0.time > 4 }
        let close = { (rgb: [Int], expected: [Int]) in zip(rgb, expected).allSatisfy { abs($0 - $1) < 6 } }
        #expect(!before.isEmpty && before.allSatisfy { close($0.rgb, [0x33, 0x66, 0x99]) }, "\(before)")
        #expect(!after.isEmpty && after.allSatisfy { close($0.rgb, [255, 0, 0]) }, "\(after)")
        // Still for 6 s but for one change: the first frame, the change, and the idle repeats
        // (one a second), not 180 frames.
        #expect(colours.count <= 12, "\(colours.count) frames of a still screen")
        let samples = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["kind"] as? String == "interval" }
        let cpu = samples.dropFirst().compactMap { $0["cpuCores"] as? Double }.sorted()
        #expect(!cpu.isEmpty && cpu[cpu.count / 2] < 0.05, "a still screen costs next to nothing: \(cpu)")
    }
}
