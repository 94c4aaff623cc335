import ArgumentParser
import Foundation
import Logging
import PodiumCore
import PodiumMedia
import PodiumRun

extension Podium {
    /// `podium mirror`: the captured screen in a window on the external display.
    struct Mirror: RunsAPlan, StopsCleanly {
        static let configuration = CommandConfiguration(
            commandName: "mirror",
            abstract: "Show the screen on the external display: a fullscreen window, scaled to fit.",
            usage: "podium mirror [options] [--to <url> …]",
            discussion: """
                The window covers the target monitor, borderless, and shows every captured frame \
                scaled straight to its size (no encoder involved). By default it goes on the largest \
                monitor that is not the captured one. When that monitor or display is not there, \
                Podium says so and waits; the window opens when it appears and closes when it goes. \
                When the captured monitor changes resolution, Podium follows it. --to records at the \
                same time; a slow recording drops its own frames, never the projector's.

                Two sources (--source twice) share the picture --layout beside (the first in a \
                column --split of the width), over (the second in a corner), or one alone.

                Presenter's tools: --highlight-pointer (h) marks the pointer and each click; \
                --zoom 2 (z: 1, 2, 4) magnifies around the pointer as it moves; --mask-window and \
                --mask notifications paint windows black before the window or a recording sees \
                them; --show-region frames the captured area on the presenter's screen.

                Keys, in the window and in the terminal: space freezes the picture (and \
                resumes), b and w blank it black or white, h highlights the pointer, z zooms, \
                + and - step the frame rate, < and > the bit rate of --to, k sends a \
                keyframe, r starts (or stops) recording --to's first encoding to podium-DATE-TIME.mkv \
                here, l changes the layout, x swaps the sources, [ and ] resize, ? lists \
                the keys, q or Escape quits; f toggles fullscreen (the window). podium control \
                does the same from another terminal.

                Global keys work while another program has the focus (X11; --no-hotkeys turns \
                them off): Ctrl+Alt+B and Ctrl+Alt+W blank, Ctrl+Alt+H highlights, Ctrl+Alt+Z \
                zooms, Ctrl+Alt+L changes the layout, Ctrl+Alt+P pauses, Ctrl+Alt+= and - step \
                the frame rate, Ctrl+Alt+R records; --hotkey ACTION=KEYS binds others.

                Examples:
                  podium mirror
                  podium mirror --on HDMI-1 --fit cover
                  podium mirror --on-display :1 --fps 60
                  podium mirror --pip top-right --pip-size 480x270
                  podium mirror --windowed --background '#202020'
                  podium mirror --to talk.mkv
                  podium mirror --highlight-pointer --mask notifications --show-region
                  podium mirror --audio --to talk.mkv
                  podium mirror --source monitor:eDP-1 --source monitor:DP-2 --split 0.7
                  podium mirror --source :0 --source :1 --layout over --over bottom-right
                """
        )

        @OptionGroup(title: "Capture") var capture: CaptureOptions
        @OptionGroup(title: "Global keys and the remote") var hotkeys: HotkeyOptions

        @Option(help: ArgumentHelp(
            "The monitor to show on: a RandR name or index (default: the largest one not captured).",
            valueName: "MONITOR"),
                transform: parsed(MonitorSelector.init(parsing:)))
        var on: MonitorSelector?

        @Option(name: .customLong("on-display"),
                help: ArgumentHelp("Show on another X display or screen.", valueName: ":N"))
        var onDisplay: String?

        @Option(help: "How the picture fills the window.")
        var fit: FitMode = .contain

        @Option(help: ArgumentHelp("The colour of the bars around the picture: #RRGGBB or a name (default: black).",
                                   valueName: "COLOR"),
                transform: parsed(RGBColor.init(parsing:)))
        var background = RGBColor(red: 0, green: 0, blue: 0)

        @Flag(help: "A normal resizable window instead of fullscreen; its title shows the live frame rate.")
        var windowed = false

        @Option(help: ArgumentHelp("A small always-on-top window in a corner of the target monitor instead of "
                                   + "fullscreen; drag it to move, drag its bottom-right corner to resize "
                                   + "(default corner: bottom-right).",
                                   valueName: "CORNER"))
        var pip: PictureInPicture.Corner?

        @Option(name: .customLong("pip-size"),
                help: ArgumentHelp(
                    "The picture-in-picture window's size, at least 64x64 (default: a quarter of the monitor's width).",
                    valueName: "WxH"),
                transform: parsed(PixelSize.init(parsing:)))
        var pipSize: PixelSize?

        @OptionGroup(title: "Scale (window and recording)") var scale: ScaleOptions
        @OptionGroup(title: "Encode (for --to)") var encode: EncodeOptions
        @OptionGroup(title: "Sound (for --to)") var sound: SoundOptions
        @OptionGroup(title: "Replay") var replay: ReplayOptions
        @OptionGroup(title: "Run") var runOptions: RunOptions

        @Option(name: .customLong("to"),
                help: ArgumentHelp("Also record or stream to a file or URL, as in 'podium stream'.", valueName: "URL"),
                transform: parsed(OutputCatalog.destination(parsing:)))
        var outputs: [Destination] = []

        /// `--pip-size` alone asks for picture-in-picture too.
        var pictureInPicture: PictureInPicture? {
            (pip ?? pipSize.map { _ in .bottomRight }).map { PictureInPicture(corner: $0, size: pipSize) }
        }

        func validate() throws {
            if windowed, let pictureInPicture {
                throw ValidationError(
                    "--pip '\(pictureInPicture.corner.rawValue)' and --windowed cannot be combined: pick one")
            }
            if let pipSize, let problem = pictureInPicture?.sizeProblem(on: nil) {
                throw ValidationError("--pip-size '\(pipSize)' \(problem)")
            }
        }

        func prepare() async throws -> PreparedRun {
            let logger = RunSetup.logger(runOptions)
            let defaults = encode.defaults(scale, display: capture.source.display)
            let outputs = outputs + [replay.destination].compactMap { $0 }
            let streams = OutputRequest.streams(of: outputs)
            let viewers = ViewerRequest.viewers(of: outputs)
            try hotkeys.checkRemote(viewers: viewers)
            if let window = outputs.first(where: { $0.window != nil }) {
                throw PodiumError.usage(
                    "--to '\(window)': mirror shows its window already; place it with --on or --on-display")
            }
            try await RunSetup.check(streams, viewers: viewers, encode: defaults, sound: sound.plan(for: outputs),
                                     run: runOptions)
            let capturePlan = try await RunSetup.capturePlan(capture.source,
                                                            outputs: streams.map(\.output) + viewers.map(\.options),
                                                            filter: scale.scaleFilter)
            let encoding = try EncodingPlan(outputs: streams, viewers: viewers, source: capturePlan.size,
                                            fps: capture.fps.start, encode: defaults)
            let request = WindowRequest(monitor: on, display: onDisplay, windowed: windowed,
                                        pictureInPicture: pictureInPicture, fit: fit, background: background)
            let (window, targetDisplay) = try await request.plan(capturing: capturePlan, filter: scale.scaleFilter)
            let plan = capture.paced(RunPlan(capture: capturePlan, fps: capture.fps.start, windows: [window],
                                             encoding: encoding, sound: sound.plan(for: outputs),
                                             limits: runOptions.limits))
            return PreparedRun(plan: plan, parts: ["mirroring to \(targetDisplay)"], options: runOptions,
                               hotkeys: try hotkeys.globalKeys(byDefault: true, replay: replay.replay != nil),
                               remote: hotkeys.remote, showRemote: hotkeys.showRemote, logger: logger)
        }
    }
}
