import Foundation
import PodiumTestSupport
import Testing

/// `Scripts/install` into a temporary prefix, as the README says to run it: the man page
/// renders with `man` and holds every command and option of `--help`, and bash completes from the
/// installed script.
@Suite struct InstallTests {
    @Test func theManPageRendersAndBashCompletes() throws {
        let prefix = try Tools.temporaryFolder()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        // The debug build the tests run is there already (a release build would take minutes), and
        // `swift test` holds the build folder's lock meanwhile.
        let install = try Tools.run(root.appendingPathComponent("Scripts/install").path,
                                    ["--prefix", prefix.path, "--configuration", "debug", "--ignore-lock"],
                                    timeout: 900)
        #expect(install.status == 0, "\(install.stdout)\(install.stderr)")
        func installed(_ path: String) -> String { prefix.appendingPathComponent(path).path }

        let manual = installed("share/man/man1/podium.1")
        let page = try Tools.run("env", ["MANWIDTH=80", "LANG=C.UTF-8", "man", "-l", manual])
        #expect(page.status == 0, "\(page.stderr)")
        for part in ["SYNOPSIS", "podium stream", "--crf", "--log-level", "OUTPUTS"] {
            #expect(page.stdout.contains(part), "\(part) in the man page")
        }
        // It matches --help: every command the help lists, and every option of each, is on the page.
        let help = try Tools.run(installed("bin/podium"), ["--help"]).stdout
        let commands = (help.components(separatedBy: "SUBCOMMANDS:").last ?? "").split(separator: "\n")
            .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }.compactMap { $0.split(separator: " ").first }
            .filter { $0.allSatisfy { $0.isLowercase || $0 == "-" } }
        #expect(commands.count >= 10, "\(help)")
        for command in commands {
            #expect(page.stdout.contains("podium \(command)"), "podium \(command) in the man page")
            let options = try Tools.run(installed("bin/podium"), [String(command), "--help"]).stdout
                .split(separator: "\n").filter { $0.hasPrefix("  -") }
                .compactMap { $0.split(separator: " ").first { $0.hasPrefix("--") } }
            // An inversion (--cursor/--no-cursor) has an entry for each.
            let missing = options.flatMap { $0.split(separator: "/") }.filter { !page.stdout.contains($0) }
            #expect(!options.isEmpty && missing.isEmpty, "podium \(command)'s \(missing) not in the man page")
        }
        // groff finds nothing to warn of, as lintian asks (but a word too long for 80 columns).
        let warnings = try Tools.run("env", ["MANWIDTH=80", "LC_ALL=C.UTF-8", "MANROFFSEQ=", "man", "--warnings",
                                             "-E", "UTF-8", "-l", "-Tutf8", "-Z", manual])
        let complaints = warnings.stderr.split(separator: "\n").filter { !$0.contains("can't break line") }
        #expect(warnings.status == 0 && complaints.isEmpty, "\(complaints)")

        // What bash does on Tab: the completion function fills COMPREPLY for the words so far.
        let complete = """
            source "$1"; shift
            COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
            function=$(complete -p podium | sed 's/.* -F \\([^ ]*\\) .*/\\1/')
            "$function" podium "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let script = installed("share/bash-completion/completions/podium")
        let command = try Tools.run("bash", ["-c", complete, "bash", script, "podium", "st"])
        #expect(command.stdout == "stream\n", "\(command.stdout)\(command.stderr)")
        let option = try Tools.run("bash", ["-c", complete, "bash", script, "podium", "stream", "--log-l"])
        #expect(option.stdout == "--log-level\n", "\(option.stdout)\(option.stderr)")
        #expect(FileManager.default.fileExists(atPath: installed("share/zsh/site-functions/_podium")))
        #expect(FileManager.default.fileExists(atPath: installed("share/fish/vendor_completions.d/podium.fish")))

        let version = try Tools.run(installed("bin/podium"), ["--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("podium "), "\(version.stdout)")
    }
}
