import Foundation
import PodiumCore
import PodiumTestSupport
import Testing

/// Which display `podium scene` draws on, as its environment names it. The scenes themselves:
/// SceneTests.
@Suite(.programThreads) struct SceneDisplayTests {
    /// A scene covers its whole display: without --display it refuses $DISPLAY, the user's own
    /// screen, in one line naming it, before it opens anything (the screen stays black).
    @Test func refusesToCoverTheUsersScreen() async throws {
        let server = try XvfbServer(width: 320, height: 240)
        let result = try await ProgramRun.podium(["scene", "--kind", "static", "--duration", "2s"],
                                                 environment: ["DISPLAY": server.display], timeout: 20)
        #expect(result.status == 64, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(result.stderr)")
        #expect(lines.first?.hasPrefix("podium: ") == true)
        #expect(result.stderr.contains("$DISPLAY (\(server.display))"), "names the display: \(result.stderr)")
        #expect(result.stderr.contains("--display :N") && result.stderr.contains("--yes"), "\(result.stderr)")
        #expect(!result.stderr.contains("drawing"), "\(result.stderr)")
        #expect(try Self.isBlack(Tools.grabScreen(server.display, width: 320, height: 240)), "nothing drawn")
    }

    /// Asked to (--yes), or given a display by name, it draws; --display is drawn on, not $DISPLAY.
    @Test(arguments: [true, false])
    func drawsWhenAskedOrGivenADisplay(yes: Bool) async throws {
        let server = try XvfbServer(width: 320, height: 240)
        let other = try XvfbServer(width: 320, height: 240)
        let arguments = yes ? ["--yes"] : ["--display", server.display]
        let environment = ["DISPLAY": yes ? server.display : other.display]
        let scene = ProgramRun.start(["scene", "--kind", "static"] + arguments, environment: environment)
        try await scene.waitForStderr(containing: "drawing the static scene on \(server.display)")
        try await Task.sleep(for: .seconds(0.5))
        let drawn = try Tools.grabScreen(server.display, width: 320, height: 240)
        let untouched = try Tools.grabScreen(other.display, width: 320, height: 240)
        let ended = try await scene.interrupt()
        #expect(ended.status == 0, "\(ended.stderr)")
        #expect(!Self.isBlack(drawn), "the slide is on \(server.display)")
        #expect(Self.isBlack(untouched), "\(other.display) is left alone")
    }

    /// Whether a BGRA grab is all black, as a fresh Xvfb's screen is (alpha aside: the grab sets it).
    static func isBlack(_ pixels: [UInt8]) -> Bool {
        pixels.enumerated().allSatisfy { $0.offset % 4 == 3 || $0.element == 0 }
    }
}
