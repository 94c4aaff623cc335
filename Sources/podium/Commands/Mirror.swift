import ArgumentParser
import Foundation
import Logging
import PodiumCore
import PodiumMedia
import PodiumX11

extension Podium {
    /// `podium mirror`: the captured screen in a window on the external display.
    struct Mirror: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the screen on the external display: a fullscreen window, scaled to fit.",
            discussion: """
                The window covers the target monitor, borderless, and shows every captured frame \
                scaled straight to its size (no encoder involved). By default it goes on the largest \
                monitor that is not the captured one. --to records at the same time; a slow \
                recording drops its own frames, never the projector's.

                Examples:
                  podium mirror
                  podium mirror --on HDMI-1 --fit cover
                  podium mirror --on-display :1 --fps 60
                  podium mirror --windowed --background '#202020'
                  podium mirror --to talk.mkv
                """
        )

        @OptionGroup(title: "Capture") var capture: CaptureOptions

        @Option(help: ArgumentHelp("The monitor to show on: a RandR name or index (default: the largest one not captured).", valueName: "MONITOR"),
                transform: parsed(MonitorSelector.init(parsing:)))
        var on: MonitorSelector?

        @Option(name: .customLong("on-display"), help: ArgumentHelp("Show on another X display or screen.", valueName: ":N"))
        var onDisplay: String?

        @Option(help: "How the picture fills the window.")
        var fit: FitMode = .contain

        @Option(help: ArgumentHelp("The colour of the bars around the picture: #RRGGBB or a name (default: black).", valueName: "COLOR"),
                transform: parsed(RGBColor.init(parsing:)))
        var background = RGBColor(red: 0, green: 0, blue: 0)

        @Flag(help: "A normal resizable window instead of fullscreen.")
        var windowed = false

        @OptionGroup(title: "Scale (window and recording)") var scale: ScaleOptions
        @OptionGroup(title: "Encode (for --to)") var encode: EncodeOptions
        @OptionGroup(title: "Run") var runOptions: RunOptions

        @Option(name: .customLong("to"), help: ArgumentHelp("Also record or stream to a file or URL, as in 'podium stream'.", valueName: "URL"),
                transform: parsed(SinkURL.init(parsing:)))
        var outputs: [SinkURL] = []

        func run() async throws {
            let logger = PipelineSetup.logger(runOptions)
            try PipelineSetup.validateOutputs(outputs, encode: encode, run: runOptions)
            let (connection, region, captured) = try PipelineSetup.openCapture(capture)
            let target = try XConnection(display: onDisplay ?? capture.display)
            let area = try targetArea(on: target, capturedDisplay: connection, region: region, captured: captured)

            let counters = PipelineCounters(targetFPS: capture.fps.framesPerSecond, sinkURLs: outputs.map(\.description), hasWindow: true)
            var branches: [any FrameBranch] = []
            var encoding = ""
            if !outputs.isEmpty {
                let (branch, encoder) = try PipelineSetup.encodeBranch(
                    outputs: outputs, region: region, capture: capture, scale: scale, encode: encode, counters: counters, logger: logger
                )
                branches.append(branch)
                encoding = "; " + PipelineSetup.describe(encoder, outputs: outputs)
            }
            let title = "Podium: \(connection.displayName) \(captured?.name ?? region.description)"
            let presenter = try WindowPresenter(connection: target, area: area.rect, fullscreen: !windowed, title: title, background: background)
            branches.insert(WindowBranch(presenter: presenter, fit: fit, filter: scale.scaleFilter, counters: counters), at: 0)

            // Each branch holds up to two frames (one pending, one in use), the window one more on screen.
            let screen = ScreenCapture(connection: connection, region: region, allowSharedMemory: !capture.noSharedMemory, drawCursor: capture.cursor,
                                       bufferCount: 2 + 2 * branches.count + 1, logger: logger)
            let pipeline = Pipeline(
                capture: screen, branches: branches, counters: counters, fps: capture.fps,
                limits: .init(duration: runOptions.duration, frames: runOptions.frames), logger: logger
            )
            logger.notice("\(capture.describe(region: region, on: connection, method: screen.method)); showing on \(area.name) of \(target.displayName) (\(area.rect), fit \(fit.rawValue))\(encoding)")
            try await PipelineSetup.run(pipeline, run: runOptions, logger: logger)
        }

        /// The monitor the window goes on, refusing one that would show the window to itself.
        private func targetArea(on target: XConnection, capturedDisplay: XConnection, region: PixelRect, captured: Monitor?) throws(PodiumError) -> (name: String, rect: PixelRect) {
            let layout = target.layout()
            let sameScreen = onDisplay == nil || (target.displayName == capturedDisplay.displayName)
            let screen = PixelRect(x: 0, y: 0, size: layout.size)
            let candidates = layout.monitors.isEmpty ? [Monitor(index: 0, name: "screen", rect: screen, isPrimary: true)] : layout.monitors
            let monitor: Monitor
            if let on {
                guard let chosen = try on.select(from: candidates) else { throw .unavailable("no monitor on \(target.displayName)") }
                monitor = chosen
            } else {
                let others = sameScreen ? candidates.filter { !$0.rect.intersects(region) } : candidates
                guard let largest = others.max(by: { $0.rect.size.area < $1.rect.size.area }) else {
                    throw .unavailable("no external monitor on \(target.displayName): every monitor is being captured; connect one, or pass --on-display :N")
                }
                monitor = largest
            }
            if sameScreen && !windowed && monitor.rect.intersects(region) {
                let others = candidates.filter { !$0.rect.intersects(region) }.map(\.name)
                let advice = others.isEmpty ? "pass --on-display :N for another display" : "pick " + others.joined(separator: " or ")
                throw .usage("--on '\(monitor.name)' would cover the captured area \(region) and mirror itself; \(advice)")
            }
            return (monitor.name, monitor.rect)
        }
    }
}

