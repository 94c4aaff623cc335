import Foundation
import PodiumTestSupport
import Testing

/// `Scripts/install` into a temporary prefix, as the README says to run it: the man page
/// renders with `man`, and bash completes from the installed script.
@Suite struct InstallTests {
    @Test func theManPageRendersAndBashCompletes() throws {
        let prefix = try Tools.temporaryFolder()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        // The debug build the tests run is there already (a release build would take minutes), and
        // `swift test` holds the build folder's lock meanwhile.
        let install = try Tools.run(root.appendingPathComponent("Scripts/install").path,
                                    ["--prefix", prefix.path, "--configuration", "debug", "--ignore-lock"], timeout: 900)
        #expect(install.status == 0, "\(install.stdout)\(install.stderr)")
        func installed(_ path: String) -> String { prefix.appendingPathComponent(path).path }

        let page = try Tools.run("env", ["MANWIDTH=80", "LANG=C.UTF-8", "man", "-l", installed("share/man/man1/podium.1")])
        #expect(page.status == 0, "\(page.stderr)")
        for part in ["SYNOPSIS", "podium stream", "--crf", "--log-level", "OUTPUTS"] {
            #expect(page.stdout.contains(part), "\(part) in the man page")
        }

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
