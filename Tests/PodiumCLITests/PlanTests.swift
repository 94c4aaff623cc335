import Foundation
@testable import PodiumCLI
import PodiumCore
import PodiumTestSupport
import Testing

/// What a command line makes, in-process: the plan `stream` and `mirror` would run, read before
/// anything is opened (the display is a shared 320x240 Xvfb). The runs themselves: podiumTests.
@Suite struct PlanTests {
    /// `podium stream` against the shared display, into a fresh folder.
    func streamPlan(_ arguments: [String], outputs: [String] = ["a.mkv"]) async throws -> PreparedRun? {
        let folder = try Tools.temporaryFolder()
        let targets = outputs.flatMap { ["--to", $0.contains(":") ? $0 : folder.appendingPathComponent($0).path] }
        return try await SharedXvfb.borrow { display in
            await CommandLineRun.plan(["stream", "--display", display] + arguments + targets)
        }
    }

    @Test func theEncodingFlagsReachTheEncoder() async throws {
        let run = try #require(try await streamPlan(["--fps", "15", "--size", "160x120", "-b", "2M", "--codec", "hevc",
                                                     "--keyint", "1s", "--preset", "veryfast",
                                                     "--encoder", "software"]))
        #expect(run.plan.fps.framesPerSecond == 15)
        let settings = try #require(run.plan.encoding.encodings.first?.settings)
        #expect(run.plan.encoding.encodings.count == 1)
        #expect(settings.codec == .hevc && settings.size == PixelSize(width: 160, height: 120))
        #expect(settings.framesPerSecond == 15 && settings.bitrate?.bitsPerSecond == 2_000_000)
        #expect(settings.keyframeInterval == .seconds(1) && settings.preset == "veryfast")
        #expect(settings.encoder == .software)
        #expect(run.hotkeys == nil, "stream holds no desktop keys unless asked")
    }

    /// Outputs that ask for the same encoding share one encoder; one that asks for its own gets it.
    @Test func outputsShareAnEncoderUnlessTheyAskForTheirOwn() async throws {
        let run = try #require(try await streamPlan([], outputs: ["a.mkv", "b.ts?size=160x120&bitrate=500k", "c.mp4"]))
        let encodings = run.plan.encoding.encodings
        #expect(encodings.count == 2)
        let full = try #require(encodings.first { $0.settings.size == PixelSize(width: 320, height: 240) })
        let small = try #require(encodings.first { $0.settings.size == PixelSize(width: 160, height: 120) })
        #expect(full.sinks.count == 2 && small.sinks.count == 1)
        #expect(small.settings.bitrate?.bitsPerSecond == 500_000)
    }

    @Test(arguments: [(["--max-size", "200"], PixelSize(width: 200, height: 150)),
                      (["--scale", "0.5"], PixelSize(width: 160, height: 120)),
                      (["--region", "100x80+10+10"], PixelSize(width: 100, height: 80))])
    func theSizeFollowsTheFlags(_ arguments: [String], size: PixelSize) async throws {
        let run = try #require(try await streamPlan(arguments))
        #expect(run.plan.encoding.encodings.map(\.settings.size) == [size])
    }

    /// A CPU budget chooses the rate within the range given; without a range, from the rate down.
    @Test func aBudgetChoosesWithinTheRange() async throws {
        let ranged = try #require(try await streamPlan(["--fps", "5-60", "--max-cpu", "0.5"]))
        #expect(ranged.plan.frameRates == 5...60 && ranged.plan.budget?.maxCPU == 0.5)
        let fixed = try #require(try await streamPlan(["--fps", "30"]))
        #expect(fixed.plan.budget == nil && fixed.plan.fps.framesPerSecond == 30)
    }

    @Test func presenterToolsAreInThePlan() async throws {
        let run = try #require(try await streamPlan(["--zoom", "2", "--highlight-pointer"]))
        #expect(run.plan.capture.zoom == 2 && run.plan.capture.highlight != nil)
    }

    /// `mirror` shows a window on the other display, holds the desktop's keys by default, and says
    /// where it shows.
    @Test func mirrorPlansAWindowOnTheOtherDisplay() async throws {
        let target = try XvfbServer(width: 640, height: 480)
        let run = try await SharedXvfb.borrow { display in
            await CommandLineRun.plan(["mirror", "--display", display, "--on-display", target.display,
                                       "--fit", "cover", "--pip", "top-left"])
        }
        let prepared = try #require(run)
        let window = try #require(prepared.plan.windows.first)
        #expect(window.display == target.display && window.fit == .cover)
        #expect(window.pictureInPicture?.corner == .topLeft)
        #expect(prepared.parts == ["mirroring to \(target.display)"])
        #expect(prepared.hotkeys != nil)
        #expect(prepared.plan.encoding.encodings.isEmpty, "nothing to encode without an output")
    }
}
