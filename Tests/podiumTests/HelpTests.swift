import Foundation
import PodiumTestSupport
import Testing

/// `--help` of each command, against golden text in `Golden/`.
/// Run with `PODIUM_UPDATE_GOLDEN=1` to rewrite the golden files after a deliberate change.
@Suite struct HelpTests {
    @Test(arguments: [["--help"], ["stream", "--help"], ["mirror", "--help"], ["displays", "--help"], ["encoders", "--help"], ["latency", "--help"], ["scene", "--help"], ["bench", "--help"]])
    func helpMatchesGolden(_ arguments: [String]) throws {
        let result = try Tools.podium(arguments)
        #expect(result.status == 0)
        let name = (arguments.count == 1 ? "podium" : arguments[0]) + ".txt"
        #expect(result.stdout == (try Tools.golden(name, actual: result.stdout)))
    }
}
