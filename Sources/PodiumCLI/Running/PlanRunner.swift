import Foundation
import Logging
import PodiumCore
import PodiumRun
import PodiumWeb
import PodiumWayland
import PodiumX11
import ServiceLifecycle
import Synchronization

/// Runs a plan as the terminal sees it: Ctrl-C and the other signals, the keys, the control
/// socket, the statistics line and summary, and the viewers' servers beside the run in one
/// service group.
enum PlanRunner {
    /// What is captured and where it goes, said as capture starts: one line, or with several
    /// encoders a line for each.
    private static func startLines(_ parts: [String], encoders: [String]) -> [String] {
        guard encoders.count > 1 else { return [(parts + encoders).joined(separator: "; ")] }
        return [(parts + ["\(encoders.count) encoders:"]).joined(separator: "; ")] + encoders.map { "  " + $0 }
    }

    /// The sound sources as the start message says them: those of one server together,
    /// `sound from A and B on S` for `sound from A on S` and `sound from B on S`.
    private static func soundParts(_ sounds: [String]) -> [String] {
        let prefix = "sound from "
        let split = sounds.map { sound -> (source: String, server: String)? in
            guard sound.hasPrefix(prefix), let on = sound.range(of: " on ", options: .backwards) else { return nil }
            return (String(sound[sound.index(sound.startIndex, offsetBy: prefix.count)..<on.lowerBound]),
                    String(sound[on.upperBound...]))
        }
        let parts = split.compactMap { $0 }
        guard sounds.count > 1, parts.count == sounds.count, Set(parts.map(\.server)).count == 1 else {
            return sounds
        }
        let sources = parts.map(\.source)
        return [prefix + sources.dropLast().joined(separator: ", ") + " and " + sources[sources.count - 1]
                + " on " + parts[0].server]
    }

    /// Runs the plan with Ctrl-C handling and statistics, the viewers' servers beside it in one
    /// service group; prints the summary, and throws what ended it.
    static func run(_ prepared: PreparedRun) async throws {
        let (plan, logger) = (prepared.plan, prepared.logger)
        for notice in plan.encoding.notices { logger.notice("\(notice)") }
        // Making a viewer's certificate may take a moment: off the cooperative pool.
        let session = try await onOwnThread("podium-build") { () throws(PodiumError) in
            try RunBuilder.build(plan, logger: logger)
        }
        let job = Job {
            try await execute(session, parts: prepared.parts, options: prepared.options, hotkeys: prepared.hotkeys,
                              remote: prepared.remote, input: prepared.input, showRemote: prepared.showRemote,
                              logger: logger)
        }
        // Signals are SignalTrap's: it stops the run, whose end then stops the servers.
        var configuration = ServiceGroupConfiguration(
            services: session.viewerServers.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) } + [
                .init(service: job, successTerminationBehavior: .gracefullyShutdownGroup,
                      failureTerminationBehavior: .gracefullyShutdownGroup),
            ],
            logger: logger)
        // Viewers that do not take the end of the stream are cut off.
        configuration.maximumGracefulShutdownDuration = Duration.seconds(3)
        try await ServiceGroup(configuration: configuration).run()
    }

    /// The run itself, with its statistics: the line each second, the JSON lines, the summary.
    private static func execute(_ session: RunSession, parts: [String], options: RunOptions, hotkeys: Hotkeys?,
                                remote: Bool, input: (any InputInjector)?, showRemote: Bool,
                                logger: Logger) async throws {
        let run = session.run
        let reporter = StatsReporter(run: run, jsonPath: options.statsJSON, live: options.showsProgress,
                                     budget: session.plan.budget) {
            () -> String? in
            if let blank = run.control.blankColour { return "blank (\(blank))" }
            if run.control.paused.load(ordering: .relaxed) { return "paused" }
            return run.counters.windowAwaits.map { "waiting for \($0)" }
        }
        Invocation.current.onStop { run.stop() }
        // Keys a desktop binds reach the run through its control socket.
        let control = try openControl(options.control ?? (session.plan.isShared || hotkeys != nil),
                                      asked: options.control == true, logger: logger)
        if let control { Thread.detachNamed("podium-control") { control.serve(run, status: reporter.status) } }
        defer { control?.remove() }
        TerminalKeys.start(for: run)
        defer { TerminalKeys.restore() }
        if let hotkeys { holdGlobalKeys(hotkeys, plan: session.plan, run: run, logger: logger) }
        holdPen(plan: session.plan, run: run, logger: logger)
        // The remote's buttons send the control socket's requests.
        let remoteLinks = remote ? session.viewerServers.first?.openRemote { line in
            run.control.answer(line, by: .remote, status: reporter.status)
        } ?? [] : []
        let inputLinks = input.flatMap { player in session.viewerServers.first?.openInput(player: player) } ?? []
        defer { SecretFile.removeAll() }
        // With a budget, the rate is the budget's to lower (and raise again up to it).
        let bounds = session.plan.frameRates
        let fps = session.plan.budget.map { budget in
            "\(session.plan.fps) fps, the budget's to choose within \(bounds.lowerBound)-\(bounds.upperBound) ("
                + (budget.maxCPU.map { "\($0.plain) cores" } ?? "every frame kept") + ")"
        } ?? "\(session.plan.fps) fps"
        let cursor = session.plan.capture.drawsCursor ? "" : ", no cursor"
        // The reporter beside the run, a task of its own (a child: it runs where the run runs).
        let failure = await withTaskGroup(of: Void.self) { reporting in
            reporting.addTask { await reporter.run() }
            defer { reporting.cancelAll() }
            return await session.execute(beforeOutputs: reporter.open) { start in
                let sources = start.sources.map { "capturing \($0) at \(fps)\(cursor)" } + soundParts(start.sounds)
                let lines = startLines(sources + parts, encoders: start.encoders)
                    + session.viewerServers.flatMap { ViewerLines.describe($0, quiet: !options.showsProgress) }
                    + ViewerLines.describeRemote(remoteLinks, quiet: !options.showsProgress, shown: showRemote)
                    + ViewerLines.describeInput(inputLinks, quiet: !options.showsProgress, shown: showRemote)
                lines.forEach { logger.notice("\($0)") }
            }
        }
        let summary = reporter.finish()
        if options.showsProgress && run.started.load(ordering: .relaxed) {
            StatsLine.clear()
            let label = "summary: "
            // On a terminal, wrapped to its width between parts, aligned under the first.
            let width = Console.isTerminal ? Console.width - "podium: ".count - label.count : nil
            for (index, line) in summary.summaryLines(width: width).enumerated() {
                Console.say((index == 0 ? label : String(repeating: " ", count: label.count)) + line)
            }
            // Each encoder's figures, when there are several.
            if summary.renditions.count > 1 { summary.renditionLines.forEach { Console.say("  " + $0) } }
        }
        if let failure { throw failure }
    }

    /// The control socket, when the run takes one: one that cannot be made is an error when it
    /// was asked for (`--control`), and said in passing when it is there by default.
    private static func openControl(_ wanted: Bool, asked: Bool, logger: Logger) throws(PodiumError)
        -> ControlSocket? {
        guard wanted else { return nil }
        do {
            return try ControlSocket(path: Invocation.current.controlSocket)
        } catch {
            if asked { throw error }
            logger.warning("\(error.said); running without it")
            return nil
        }
    }

    /// Holds `hotkeys` on the X display of the first X11 source on a thread of its own until the
    /// run stops. A run without one, or a display that cannot have them, is said, and goes on.
    private static func holdGlobalKeys(_ hotkeys: Hotkeys, plan: RunPlan, run: Run, logger: Logger) {
        // An X display's name (`:0`, `host:1.0`), not a compositor's socket or PipeWire.
        let isX11 = { (name: String) in
            name.contains(":") && name.split(separator: ":").last?.allSatisfy { $0.isNumber || $0 == "." } == true
        }
        guard let display = plan.capture.sources.map(\.display).first(where: isX11) else {
            // sway offers no portal for global keys: its own bindings reach the run's control socket.
            guard Invocation.current.environment["SWAYSOCK"] == nil else {
                logger.notice("global keys: sway binds them; add these lines to its config, then swaymsg reload:")
                hotkeys.swayBindings.forEach { logger.notice("  \($0)") }
                return
            }
            holdPortalKeys(hotkeys, run: run, logger: logger)
            return
        }
        Thread.detachNamed("podium-hotkeys") {
            let keys: GlobalKeys
            do throws(PodiumError) {
                keys = try GlobalKeys(display: display, hotkeys: hotkeys)
            } catch {
                logger.warning("\(error.said); the keys work in the terminal and the window only")
                return
            }
            let problems = keys.grab()
            problems.forEach { logger.warning("\($0.problem)") }
            let held = hotkeys.without(problems.map(\.action)).summary
            guard !held.isEmpty else { return }
            logger.notice("global keys: \(held)")
            run.control.globalKeys.withLock { $0 = held }
            let ended = keys.listen(isStopping: { run.isStopping }, perform: { action in
                run.control.perform(action.command, from: .globalKey)
            }, regrabbed: { problems in
                problems.forEach { logger.warning("\($0.problem)") }
                // xdotool changes the map to type a key it lacks: said only with --verbose.
                logger.info("global keys: held again as the new keyboard map has them")
            })
            if let ended { logger.warning("\(ended)") }
        }
    }

    /// The pen's overlay over the first source that can have one (an X11 screen's window, a
    /// wlroots output's layer surface), on a thread of its own until the run stops: shown only
    /// while the pen is on (`d`, Ctrl+Alt+D) or has strokes to show.
    private static func holdPen(plan: RunPlan, run: Run, logger: Logger) {
        guard run.control.pen.unavailable == nil,
              let source = plan.capture.sources.first(where: { $0.penUnavailable == nil }) else { return }
        Thread.detachNamed("podium-pen") {
            let overlay: any PenSurface
            do throws(PodiumError) {
                overlay = try source.openPen(run.control.pen)
            } catch {
                logger.warning("\(error.said); the run has no pen")
                return
            }
            let ended = overlay.run(isStopping: { run.isStopping }, said: { logger.warning("\($0)") },
                                    leave: { run.control.setPen(false, by: .key) })
            if let ended { logger.warning("\(ended)") }
        }
    }

    /// Asks the desktop's GlobalShortcuts portal for `hotkeys` (GNOME, KDE) on a thread of its own,
    /// which hands on each press until the run stops. A desktop without it is said, and the run goes on.
    private static func holdPortalKeys(_ hotkeys: Hotkeys, run: Run, logger: Logger) {
        Thread.detachNamed("podium-hotkeys") {
            do throws(PodiumError) {
                let ended = try GlobalShortcutsPortal.hold(hotkeys, isStopping: { run.isStopping }, bound: { keys in
                    let held = keys.map { "\($0.action.name) \($0.trigger.isEmpty ? "(unbound)" : $0.trigger)" }
                        .joined(separator: ", ")
                    logger.notice("global keys, as the desktop bound them: \(held)")
                    run.control.globalKeys.withLock { $0 = held }
                }, pressed: { action in
                    run.control.perform(action.command, from: .globalKey)
                })
                if let ended { logger.warning("\(ended)") }
            } catch {
                logger.notice("global keys: \(error.said); the keys work in the terminal and the window")
            }
        }
    }

    /// Work run as one service of the group: the run.
    private struct Job: Service {
        let body: @Sendable () async throws -> Void
        func run() async throws { try await body() }
    }
}

extension RunSession {
    /// The browser viewers' servers: services of the run's group, and where the remote and the
    /// extra screen's input are served.
    fileprivate var viewerServers: [ViewerServer] { servers.compactMap { $0 as? ViewerServer } }
}
