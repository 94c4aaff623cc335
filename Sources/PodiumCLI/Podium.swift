import ArgumentParser
import CBuildInfo
import Foundation
import PodiumCore
import PodiumMedia
import PodiumRun

/// `podium`: mirror and stream a Linux screen.
struct Podium: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "podium",
        abstract: "Mirror a Linux screen (X11 or Wayland) to a projector, and stream it to files, servers and "
            + "browsers.",
        discussion: """
            Podium grabs the primary monitor with MIT-SHM at the frame rate you choose, scales and \
            encodes it with libavcodec, and writes it to every --to output at once, reporting what \
            it achieves: frame rate, drops, per-stage times, bit rate and CPU.

            Examples:
              podium displays
              podium windows
              podium sources
              podium mirror
              podium stream --to talk.mkv
              podium stream --fps 15 --max-size 1280 --bitrate 2M --to udp://127.0.0.1:5000
              podium control set fps=10
              podium encoders
            """,
        version: versionText,
        // Each names itself (commandName:): a name derived from the type's costs every start a
        // search of all the binary's protocol conformances per command, ~2 ms in all.
        subcommands: [Stream.self, Mirror.self, Extend.self, Displays.self, Windows.self, Sources.self, Encoders.self,
                      Cast.self, Latency.self, Scene.self, AVSync.self, Bench.self, Control.self, WHIPCheck.self]
    )
}

extension Podium {
    static let version = "0.1.0"
    /// The version this build was made as: `git describe` for a package (Scripts/package), or the
    /// source's own.
    static var buildVersion: String {
        let packaged = String(cString: cbuildinfo_version())
        return packaged.isEmpty ? version : packaged
    }

    /// `podium --version`: Podium's version, and those of the libraries it runs with.
    static var versionText: String {
        // libxcb reports no version: the file the linker loaded names it.
        let xcb = "libxcb" + (SharedLibrary.file(named: "libxcb.so").map { " (\($0))" } ?? "")
        return (["podium \(buildVersion)"] + LibraryVersions.media + [xcb]).joined(separator: "\n")
    }
}

/// A command that runs until it is stopped, and finalizes what it wrote when a signal asks it to.
protocol StopsCleanly {}

/// What a command line comes to when it fails: the one line said (without `podium: `) and the
/// sysexits code.
struct Refusal: Equatable {
    var line: String
    var code: Int32
}

/// The program: a command line run, every failure turned into one `podium: ` line and a code.
public enum PodiumProgram {
    /// The process's run: its signals trapped and its heap kept small, then `arguments` (the
    /// program's own name left out) run. Returns the exit code.
    public static func main(_ arguments: [String]) async -> Int32 {
        HeapKeeper.limitArenas()
        SignalTrap.install()
        return await run(arguments)
    }

    /// Runs what `arguments` ask as `invocation` (the process's own, or a test's inside its
    /// process), and returns the exit code.
    public static func run(_ arguments: [String], as invocation: Invocation = .process) async -> Int32 {
        await Invocation.$current.withValue(invocation) {
            do {
                var command = try Podium.parseAsRoot(preparedArguments(arguments))
                if invocation.ownsTerminal {
                    SignalTrap.commandStopsCleanly(type(of: command) is any StopsCleanly.Type)
                }
                if var asyncCommand = command as? any AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
                return 0
            } catch {
                guard let refusal = Podium.refusal(for: error, arguments: arguments) else {
                    // Help and --version: on stdout, or for what ends with a code of its own, stderr.
                    let (text, code) = (Podium.fullMessage(for: error), Podium.exitCode(for: error))
                    if code == .success, !text.isEmpty { Console.output(text) }
                    if code != .success, !text.isEmpty { Console.write(text + "\n") }
                    return code.rawValue
                }
                if invocation.ownsTerminal { StatsLine.clear() }
                Console.say(refusal.line, wrapped: false)
                return refusal.code
            }
        }
    }
}

extension Podium {
    /// The line and code `error` ends the program with; `nil` for what is not a failure (a
    /// request for help or the version, an exit asked for).
    static func refusal(for error: any Error, arguments: [String]) -> Refusal? {
        if let error = error as? PodiumError { return Refusal(line: error.said, code: error.exitCode.rawValue) }
        let exitCode = exitCode(for: error)
        guard exitCode != .success, !(error is ExitCode) else { return nil }
        // ArgumentParser's message, on one line, without the usage block that follows it.
        var line = message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
        // It quotes the value it refused, which may be a URL with a stream key or passphrase.
        for argument in arguments where URLText.redacted(argument) != argument {
            line = line.replacingOccurrences(of: argument, with: URLText.redacted(argument))
        }
        return Refusal(line: line.replacingOccurrences(of: "Error: ", with: ""), code: exitCode.rawValue)
    }
}
