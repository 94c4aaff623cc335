import Foundation
import ArgumentParser
import PodiumCore

/// What to capture, and how: everything about capture but its rate, which `bench` sweeps.
struct CaptureSource: ParsableArguments {
    @Option(help: ArgumentHelp("The X display to capture (default: $DISPLAY); with --source wlr, the Wayland "
                               + "compositor's socket, by name or path (default: $WAYLAND_DISPLAY).",
                               valueName: ":N|wayland-N"))
    var display: String?

    @Option(help: ArgumentHelp("The monitor to capture: primary, a RandR name or an index from 'podium displays' "
                               + "(default: primary).", valueName: "primary|NAME|INDEX"),
            transform: parsed(MonitorSelector.init(parsing:)))
    var monitor: MonitorSelector?

    @Option(help: ArgumentHelp("Capture this rectangle of the screen instead of a monitor.", valueName: "WxH+X+Y"),
            transform: parsed(PixelRect.init(parsing:)))
    var region: PixelRect?

    @Option(help: ArgumentHelp("Capture one window's own pixels, even when covered: a title, a part of it or "
                               + "a class, an id from 'podium windows', or pick to click it.",
                               valueName: "NAME|ID|pick"),
            transform: parsed(WindowSelector.init(parsing:)))
    var window: WindowSelector?

    @Flag(name: .customLong("exit-when-gone"),
          help: "End the run when the --window closes, instead of waiting for a window of its name.")
    var exitWhenGone = false

    @Option(name: .customLong("source"),
            help: ArgumentHelp("A source: a window of --display, a monitor of it, a rectangle of its screen, "
                               + "another display's primary monitor; on Wayland, portal: the monitor or window "
                               + "the user shares in the desktop's dialog (asked once, then remembered), or "
                               + "wlr[:NAME]: an output of a wlroots compositor ($WAYLAND_DISPLAY, or --display "
                               + "wayland-N), "
                               + "the one named or --monitor names; or a PipeWire video node by its id; or "
                               + "camera[:NAME], a camera ('podium sources --video' lists them; the first by "
                               + "default). Twice for two, of any kinds, composed by --layout (the first is the "
                               + "primary; --window counts as one).",
                               valueName: "window:NAME|monitor:NAME|WxH+X+Y|:N|portal|wlr|pipewire:NODE"),
            transform: parsed(SourceRequest.init(parsing:)))
    var sources: [SourceRequest] = []

    @Flag(name: .customLong("forget-choice"),
          help: "Forget the monitor or window the desktop's portal shared last time, and ask again.")
    var forgetChoice = false

    @OptionGroup(title: "Layout (two sources)") var layout: LayoutOptions

    @Flag(inversion: .prefixedNo, help: "Draw the mouse cursor into the picture.")
    var cursor = true

    @OptionGroup(title: "Presenter's tools") var presenter: PresenterOptions

    @Flag(name: .customLong("no-shm"), help: "Grab with plain GetImage instead of MIT-SHM shared memory.")
    var noSharedMemory = false

    @Flag(name: .customLong("constant-fps"),
          help: "Grab every frame at --fps, changed or not (by default only what changed is grabbed).")
    var constantFPS = false

    @Option(name: .customLong("idle-fps"),
            help: ArgumentHelp("How often an unchanged screen is still sent on (default: once a second to a "
                               + "stream, twice to HLS of MPEG-TS segments, never to a file, window or viewer).",
                               valueName: "N"),
            transform: parsed(FrameRate.init(parsing:)))
    var idleFPS: FrameRate?

    /// How often an unchanged screen is sent on: as asked, or as often as the output that wants
    /// it most often needs (once a second for a stream; twice for an HLS output of MPEG-TS
    /// segments, as Chromium cannot play those whose pictures are a second apart; never for a
    /// file, a window or the browser viewer); `nil` for never.
    func idleRate(for outputs: [any OutputPlan]) -> FrameRate? {
        if let idleFPS { return idleFPS }
        let most = outputs.map(\.needs.idleFPS).max() ?? 0
        return most > 0 ? FrameRate(most) : nil
    }

    func validate() throws {
        if monitor != nil && region != nil {
            throw ValidationError("--monitor and --region cannot be combined: --region is in screen coordinates")
        }
        let all = allSources
        if forgetChoice && !(all.isEmpty || all.contains(.portal)) {
            throw ValidationError("--forget-choice drops the desktop portal's remembered choice: only with "
                                  + "--source portal")
        }
        if all.count == 1, let whole = all.first, !whole.isX11 {
            try validate(whole: whole)
            return
        }
        if all.count > 2 {
            throw ValidationError("--source can be given twice at most (--source '\(all[2])' is a third)")
        }
        if !all.isEmpty, let other = monitor.map({ "--monitor '\($0)'" }) ?? region.map({ "--region '\($0)'" }) {
            let given = window.map { "--window '\($0)'" } ?? "--source"
            throw ValidationError("\(given) cannot be combined with \(other): give each source with --source")
        }
        if all.count < 2, let flag = layout.firstGiven {
            throw ValidationError("\(flag) lays out two sources: pass --source twice")
        }
        let screenOnly = presenter.showsRegion ? "--show-region" : !presenter.masks.isEmpty ? "--mask" : nil
        let takes = { (source: SourceRequest) in presenter.showsRegion ? source.isX11 && !source.isWindow
                                                                       : source.masksWindows }
        if let screenOnly, !all.isEmpty, !all.contains(where: takes) {
            throw ValidationError("\(screenOnly) works on a captured X11 screen; "
                                  + (all.contains(where: \.isWindow) ? "--window captures one window's own pixels, "
                                     + "without the others" : "pass one with --source"))
        }
        if noSharedMemory, !all.isEmpty, !all.contains(where: \.isX11) {
            throw ValidationError("--no-shm is for X servers, not with --source \(all[0])")
        }
        if exitWhenGone && !all.contains(where: \.isWindow) {
            throw ValidationError("--exit-when-gone needs --window (or --source window:NAME): it ends the run when "
                                  + "that window closes")
        }
    }

    /// One source that is not an X server's (a Wayland output, what the portal shares, a PipeWire
    /// node, a camera) is one whole picture: no region of it, no X11 flags, no masks. (The
    /// highlight and the zoom are for the plan to allow: they need a source that says where the
    /// pointer is.)
    private func validate(whole source: SourceRequest) throws {
        let given = "--source \(source)"
        if let region {
            throw ValidationError("--region '\(region)' is taken on X11 screens; \(given) captures a whole picture")
        }
        if source == .portal, let monitor {
            throw ValidationError("--monitor '\(monitor)' is not taken with \(given): the desktop's dialog picks the "
                                  + "monitor (--forget-choice to pick again)")
        }
        if case .wlr = source {} else if let monitor {
            throw ValidationError("--monitor '\(monitor)' is not taken with \(given): the node is one picture")
        }
        if noSharedMemory {
            throw ValidationError("--no-shm is for X servers, not with \(given)")
        }
        if let flag = layout.firstGiven {
            throw ValidationError("\(flag) lays out two sources; \(given) is captured alone")
        }
        let presenting = [(!presenter.masks.isEmpty && !source.masksWindows, "--mask"),
                          (presenter.showsRegion, "--show-region")]
        if let (_, flag) = presenting.first(where: \.0) {
            throw ValidationError("\(flag) works on X11 screens for now, not with \(given)")
        }
    }

    /// Every source asked for, the primary first: `--window` (short for `--source window:NAME`),
    /// then each `--source`.
    var allSources: [SourceRequest] {
        (window.map { [SourceRequest.window($0)] } ?? []) + sources
    }
}

/// What to capture, and how often.
struct CaptureOptions: ParsableArguments {
    @OptionGroup var source: CaptureSource

    @Option(name: [.customLong("fps"), .customLong("max-fps")],
            help: ArgumentHelp("Frames per second to capture, 1 to 240 (default: 30); a range such as 5-60 keeps "
                               + "+/- and the budget within it (starting at the top); auto finds the highest "
                               + "rate that keeps every frame.", valueName: "N|A-B|auto"),
            transform: parsed(FrameRateRequest.init(parsing:)))
    var fps = FrameRateRequest(start: FrameRate(30))

    @Option(name: .customLong("max-cpu"),
            help: ArgumentHelp("Keep Podium within C cores (0.5: half a core): the frame rate is lowered to fit, and "
                               + "raised again after 10 s of calm, up to --fps.", valueName: "C"))
    var maxCPU: Double?

    func validate() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        if let maxCPU, !(maxCPU > 0 && maxCPU <= Double(cores)) {
            throw ValidationError("--max-cpu '\(maxCPU.plain)' must be more than 0 and at most the \(cores) cores here")
        }
    }

    /// `plan` with the rates it may take, and the budget that chooses among them when there is one.
    func paced(_ plan: RunPlan) -> RunPlan {
        var plan = plan
        plan.frameRates = fps.bounds
        // A budget lowers the rate from the one given.
        if maxCPU != nil && !fps.isAuto && fps.bounds == FrameRate.range {
            plan.frameRates = min(LiveTuning.ladder[0], fps.start.framesPerSecond)...fps.start.framesPerSecond
        }
        if fps.isAuto || maxCPU != nil { plan.budget = FrameRateBudget(maxCPU: maxCPU) }
        return plan
    }
}
