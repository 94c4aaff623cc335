import ArgumentParser
import PodiumCore

/// Where `podium stream` sends what it captures: its own section, first in the help.
struct OutputOptions: ParsableArguments {
    @Option(name: .customLong("to"),
            help: ArgumentHelp("An output: a file, a URL or a window (see OUTPUTS above). Repeat for several.",
                               valueName: "URL"),
            transform: parsed(Destination.init(parsing:)))
    var outputs: [Destination] = []

    func validate() throws {
        if outputs.count(where: { $0.windowMonitor != nil }) > 1 {
            throw ValidationError("--to window can be given once")
        }
    }

    /// At least one output, checked when the command runs rather than in `validate()`:
    /// ArgumentParser validates before it reports an unknown option, and `-o x.mkv` should be
    /// told that `-o` is unknown, not that there is no `--to`.
    func requireOne() throws {
        guard !outputs.isEmpty else { throw ValidationError("nothing to write to: pass --to FILE or --to URL") }
    }
}
