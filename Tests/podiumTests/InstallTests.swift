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
        // The podium the tests run is built already (a release build would take minutes); its build
        // folder (`<scratch>/<triple>/debug`) holds the package's checkouts.
        let podium = Tools.podium.resolvingSymlinksInPath()
        let scratch = podium.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let install = try Tools.run(root.appendingPathComponent("Scripts/install").path,
                                    ["--prefix", prefix.path, "--binary", podium.path, "--scratch-path", scratch.path],
                                    timeout: 900)
        #expect(install.status == 0, "\(install.stdout)\(install.stderr)")
        func installed(_ path: String) -> String { prefix.appendingPathComponent(path).path }

        let manual = installed("share/man/man1/podium.1")
        let page = try Tools.run("env", ["MANWIDTH=80", "LANG=C.UTF-8", "man", "-l", manual])
        #expect(page.status == 0, "\(page.stderr)")
        for part in ["SYNOPSIS", "podium stream", "--crf", "--log-level", "OUTPUTS"] {
            #expect(page.stdout.contains(part), "\(part) in the man page")
        }
        // It matches the help: every command, and every option of each that `--help` shows, is on the
        // page. Read from the help's own description of the commands, in one start of the (debug,
        // slow to start) binary rather than one `--help` a command.
        let dump = try Tools.run(installed("bin/podium"), ["--experimental-dump-help"])
        let help = try JSONDecoder().decode(DumpedHelp.self, from: Data(dump.stdout.utf8)).command
        let commands = (help.subcommands ?? []).filter { $0.shouldDisplay && $0.commandName != "help" }
        #expect(commands.count >= 10, "\(dump.stdout.prefix(400))")
        for command in commands {
            let name = command.commandName
            #expect(page.stdout.contains("podium \(name)"), "podium \(name) in the man page")
            let options = (command.arguments ?? []).filter(\.shouldDisplay)
                .flatMap { ($0.names ?? []).filter { $0.kind == "long" }.map { "--\($0.name)" } }
            let missing = options.filter { !page.stdout.contains($0) }
            #expect(!options.isEmpty && missing.isEmpty, "podium \(name)'s \(missing) not in the man page")
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

/// What `--experimental-dump-help` says of the commands, as far as the man page's test reads it.
private struct DumpedHelp: Decodable {
    struct Command: Decodable {
        var commandName: String
        var shouldDisplay: Bool
        var subcommands: [Command]?
        var arguments: [Argument]?
    }

    struct Argument: Decodable {
        struct Name: Decodable {
            var kind: String
            var name: String
        }

        var names: [Name]?
        var shouldDisplay: Bool
    }

    var command: Command
}
