import ArgumentParser
import Foundation
@testable import PodiumCLI
import PodiumTestSupport
import Testing

/// `--help` of each command at 80 columns, against golden text in `Golden/`.
/// Run with `PODIUM_UPDATE_GOLDEN=1` to rewrite the golden files after a deliberate change.
/// In-process: the text the program prints for these arguments, and the code it exits with.
@Suite struct HelpTests {
    /// What `podium ARGUMENTS` prints on stdout, and its exit code.
    static func printed(_ arguments: [String]) -> (text: String, status: Int32) {
        do {
            // Help is a command of ArgumentParser's, whose run throws the text; nothing of Podium's is run.
            var command = try Podium.parseAsRoot(preparedArguments(arguments))
            guard !String(reflecting: type(of: command)).hasPrefix("PodiumCLI.") else { return ("", -1) }
            try command.run()
            return ("", -1)
        } catch {
            return (Podium.fullMessage(for: error, columns: 80) + "\n", Podium.exitCode(for: error).rawValue)
        }
    }

    static let commands = [["--help"], ["stream", "--help"], ["mirror", "--help"], ["extend", "--help"],
                           ["displays", "--help"],
                           ["windows", "--help"],
                           ["encoders", "--help"], ["latency", "--help"], ["scene", "--help"], ["bench", "--help"],
                           ["control", "--help"], ["whip-check", "--help"], ["cast", "--help"]]

    @Test(arguments: commands)
    func helpMatchesGolden(_ arguments: [String]) throws {
        let result = Self.printed(arguments)
        #expect(result.status == 0)
        let name = (arguments.count == 1 ? "podium" : arguments[0]) + ".txt"
        #expect(result.text == (try Tools.golden(name, actual: result.text)))
    }

    /// Nothing is wider than the terminal, and every example is one whole command on one line,
    /// so it can be copied: in an examples block each line is a command or a `#` note under one.
    @Test(arguments: commands)
    func helpFitsEightyColumnsAndExamplesCopy(_ arguments: [String]) throws {
        let lines = Self.printed(arguments).text.split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines { #expect(line.count <= 80, "\(line.count) columns: \(line)") }
        var inExamples = false
        var examples = 0
        for line in lines {
            if line.hasPrefix("Examples:") {
                inExamples = true
            } else if line.isEmpty {
                inExamples = false
            } else if inExamples {
                #expect(line.hasPrefix("  podium ") || line.hasPrefix("    # "), "a broken example: \(line)")
                examples += line.hasPrefix("  podium ") ? 1 : 0
            }
        }
        #expect(examples > 0 || arguments.first == "encoders" || arguments.first == "displays"
                || arguments.first == "windows")
    }

    /// `--version` names the libraries Podium runs with; FFmpeg's tools, linked to the same
    /// libraries, report the same libavcodec.
    @Test func versionNamesTheLibraries() throws {
        let result = Self.printed(["--version"])
        #expect(result.status == 0)
        let lines = result.text.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("podium ") == true, "\(result.text)")
        for library in ["libavcodec ", "libavformat ", "libswscale ", "libyuv ", "libxcb "] {
            #expect(lines.contains { $0.hasPrefix(library) }, "\(library) in \(result.text)")
        }
        // Libraries with no version function are named by the file the dynamic linker loaded.
        #expect(lines.contains { $0.hasPrefix("libxcb (libxcb.so.1.") && $0.hasSuffix(")") }, "\(result.text)")
        let yuv = #"^libyuv \d+ \(libyuv\.so\.[0-9.]+\)$"#
        #expect(lines.contains { $0.range(of: yuv, options: .regularExpression) != nil }, "\(result.text)")
        // ffprobe prints `libavcodec     59. 37.100 / 59. 37.100`: built with / running with.
        let probe = try Tools.run("ffprobe", ["-version"]).stdout.split(separator: "\n")
        let running = probe.first { $0.hasPrefix("libavcodec") }?.split(separator: "/").last?
            .replacingOccurrences(of: " ", with: "")
        #expect(running != nil && lines.contains("libavcodec \(running ?? "")"), "\(result.text)")
    }
}
