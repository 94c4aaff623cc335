import ArgumentParser
import PodiumCore
import PodiumMedia

/// `--replay 2m`: the last minutes of the run kept, for `save` to write to a file (`mirror` and
/// `stream`).
struct ReplayOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Keep the last LENGTH of the run (5s to 2h, such as 2m): s, Ctrl+Alt+S, 'podium control "
                               + "save [30s]' or the remote write it to a file while the run goes on.",
                               valueName: "LENGTH"),
            transform: parsed { text throws(OptionParseError) in
                let span = try Duration(parsing: text)
                guard span >= .seconds(5) && span <= ReplayPlan.longest else {
                    throw OptionParseError("keep from 5s to 2h")
                }
                return span
            })
    var replay: Duration?

    @Option(name: .customLong("replay-memory"),
            help: ArgumentHelp("Memory the replay holds (default \(ReplayPlan.defaultMemory)); past it, the oldest "
                               + "part goes to a temporary file in $TMPDIR or /var/tmp.", valueName: "SIZE"),
            transform: parsed { text throws(OptionParseError) in
                let size = try ByteSize(parsing: text, least: 1 << 20)
                guard size.bytes <= 32 << 30 else { throw OptionParseError("at most 32G; past it, use the disk") }
                return size
            })
    var memory: ByteSize?

    func validate() throws {
        if let memory, replay == nil {
            throw ValidationError("--replay-memory '\(memory)' is for a replay; add --replay 2m")
        }
    }

    /// The replay as an output of the run, if one is asked for.
    var destination: Destination? {
        replay.map { span in
            let temporary = Invocation.current.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 }
            return Destination(ReplayPlan(span: span, memoryLimit: Int((memory ?? ReplayPlan.defaultMemory).bytes),
                                          spillFolder: temporary))
        }
    }
}
