import ArgumentParser
import PodiumCore
import PodiumRun
import PodiumWebRTC

/// Where `podium stream` sends what it captures: its own section, first in the help.
struct OutputOptions: ParsableArguments {
    @Option(name: .customLong("to"),
            help: ArgumentHelp("An output: a file, a URL or a window (see OUTPUTS above). Repeat for several.",
                               valueName: "URL"),
            transform: parsed(OutputCatalog.destination(parsing:)))
    var named: [Destination] = []

    @Option(name: .customLong("ice-server"),
            help: ArgumentHelp("A STUN or TURN server for WHIP outputs: stun:host[:port], turn:user:pass@host[:port] "
                               + "(repeatable).", valueName: "URL"),
            transform: parsed(WHIPEndpoint.iceServer(parsing:)))
    var iceServers: [String] = []

    /// The outputs, each WHIP endpoint with the ICE servers.
    var outputs: [Destination] {
        named.map { destination in
            guard var endpoint = destination.output as? WHIPEndpoint else { return destination }
            endpoint.iceServers = iceServers
            return Destination(endpoint, rendition: destination.rendition)
        }
    }

    func validate() throws {
        if !iceServers.isEmpty && !named.contains(where: { $0.output is WHIPEndpoint }) {
            throw ValidationError("--ice-server is for whip+https:// outputs; there is none")
        }
        if outputs.count(where: { $0.window != nil }) > 1 {
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
