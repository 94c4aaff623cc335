import ArgumentParser
import Logging
import PodiumCore

/// A run made from a command line, not started: its plan, and what the terminal adds to it.
/// Everything about the command line that can be refused has been by the time one exists.
struct PreparedRun {
    var plan: RunPlan
    /// What the run does besides capturing and encoding (`mirroring to :1`), said as capture starts.
    var parts: [String]
    var options: RunOptions
    /// The keys held for the whole desktop, if any.
    var hotkeys: Hotkeys?
    /// Serve the remote's page beside the (first) browser viewer.
    var remote = false
    /// Plays a viewer's pointer and keys (`podium extend --allow-input`).
    var input: (any InputInjector)?
    /// Draw the remote's and the input's links on a terminal too.
    var showRemote = false
    var logger: Logger
}

/// A command whose run is a plan: made first (the source looked up, the outputs checked, nothing
/// opened that writes), then run. Tests make the plan without running it.
protocol RunsAPlan: AsyncParsableCommand {
    func prepare() async throws -> PreparedRun
}

extension RunsAPlan {
    func run() async throws {
        try await PlanRunner.run(prepare())
    }
}
