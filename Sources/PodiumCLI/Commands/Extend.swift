import ArgumentParser
import Foundation
import PodiumCore
import PodiumRun
import PodiumWayland
import PodiumX11

extension Podium {
    /// `podium extend`: a monitor that exists only for the run, streamed like any source.
    struct Extend: AsyncParsableCommand, StopsCleanly {
        static let configuration = CommandConfiguration(
            commandName: "extend",
            abstract: "Add a monitor that exists only for this run and stream it: a tablet, a second laptop or a "
                + "browser anywhere becomes an extra screen.",
            usage: "podium extend [WxH[@FPS]] [--right-of <monitor>] [options] [--to <url> …]",
            discussion: """
                The desktop gets a new monitor beside the others, with no cable and no dummy plug: \
                windows can be dragged onto it, and the desktop treats it as a screen. Podium \
                captures it and, unless --to names other outputs, serves the browser viewer on \
                every address of this machine (https://, port 8443; the certificate is made once \
                and names this machine), with its link and a QR code: open it on the tablet. The \
                monitor goes when the run ends, however it ends; one left by a run that was \
                killed is taken away by the next run, or by --clean.

                X11: the screen grows (RandR) and an output with nothing plugged in is driven \
                over the new area (a RandR monitor alone where none is spare, which the pointer \
                cannot enter): Xorg does it with any driver, the dummy one included; Xvfb's screen \
                is fixed. An X screen grows right and down only. wlroots (sway): a headless \
                output, over sway's IPC. GNOME: Mutter's virtual monitor, read through PipeWire; \
                it goes with the run's screen cast session, even when the run is killed. Other \
                Wayland desktops: a virtual monitor of the ScreenCast portal's (KDE Plasma's), \
                of the size and place the desktop chooses.

                --allow-input prints a second link: on its page, a touch, a click or a key on the \
                picture is played on the new monitor, and nowhere else (XTest on X11, wlroots' \
                virtual pointer and keyboard on sway, the remote desktop session on GNOME). From \
                another machine it needs https:// (or --input-over-http).

                --to takes every output 'podium stream' does (see podium stream --help), the \
                viewer's ?token= and ?max-viewers= included.

                Examples:
                  podium extend
                  podium extend ipad --right-of HDMI-1 --monitor-scale 2
                  podium extend 1280x800@60 --below eDP-1 --to talk.mkv
                  podium extend --to 'http://0.0.0.0:9000?max-viewers=4'
                  podium extend ipad --allow-input
                  podium extend --clean
                """
        )

        @Argument(help: ArgumentHelp("The new monitor's size and refresh rate, which is the capture's: WxH[@FPS] or "
                                     + "ipad (2048x1536), 1080p, 720p (default: 1920x1080@30).",
                                     valueName: "WxH[@FPS]"),
                  transform: parsed(ExtendRequest.init(parsing:)))
        var size: ExtendRequest?

        @Option(name: .customLong("right-of"), help: ArgumentHelp("Put it right of this monitor (the default, beside "
                                                                 + "the primary).", valueName: "MONITOR"))
        var rightOf: String?
        @Option(name: .customLong("left-of"), help: ArgumentHelp("Put it left of this monitor.", valueName: "MONITOR"))
        var leftOf: String?
        @Option(help: ArgumentHelp("Put it above this monitor.", valueName: "MONITOR"))
        var above: String?
        @Option(help: ArgumentHelp("Put it below this monitor.", valueName: "MONITOR"))
        var below: String?

        @Option(name: .customLong("monitor-scale"),
                help: ArgumentHelp("Draw the new monitor at F times (2 for a tablet's HiDPI screen): windows there "
                                   + "look as large as on a monitor F times smaller, and as sharp as the whole size; "
                                   + "1 to 4, on Wayland (default: 1).", valueName: "F"))
        var monitorScale: Double?

        @Option(help: ArgumentHelp("The desktop to extend: an X display, or a Wayland compositor's socket (default: "
                                   + "$WAYLAND_DISPLAY, else $DISPLAY).", valueName: ":N|wayland-N"))
        var display: String?

        @Flag(help: "Take away the monitors that runs killed before their end left behind, and exit.")
        var clean = false

        @Flag(name: .customLong("allow-input"),
              help: ArgumentHelp("Let the browser viewer's page be the extra screen's pointer and keyboard too, "
                                 + "behind a link of its own."))
        var allowInput = false

        @Flag(name: .customLong("input-over-http"),
              help: ArgumentHelp("Take --allow-input's pointer and keys over plain http:// from other machines, "
                                 + "where anyone on the network can read them and the link's token."))
        var inputOverHTTP = false

        @OptionGroup(title: "Output") var output: OutputOptions
        @OptionGroup(title: "Global keys and the remote") var hotkeys: HotkeyOptions
        @OptionGroup(title: "Scale") var scale: ScaleOptions
        @OptionGroup(title: "Encode") var encode: EncodeOptions
        @OptionGroup(title: "Sound") var sound: SoundOptions
        @OptionGroup(title: "Run") var runOptions: RunOptions

        /// The viewer served when --to names no output: over TLS, as its token (and with
        /// --allow-input every key typed on it) crosses the room's network.
        static let defaultViewer = "https://0.0.0.0:8443"

        func validate() throws {
            let sides = [("right-of", rightOf), ("left-of", leftOf), ("above", above), ("below", below)]
                .filter { $0.1 != nil }
            if sides.count > 1 {
                throw ValidationError("--\(sides[0].0) and --\(sides[1].0) cannot be combined: give one side")
            }
            if allowInput, !output.outputs.isEmpty, ViewerRequest.viewers(of: output.outputs).isEmpty {
                throw ValidationError("--allow-input: the input comes from the browser viewer's page; add one, such "
                                      + "as --to \(Self.defaultViewer)")
            }
            if allowInput, !inputOverHTTP,
               let open = ViewerRequest.viewers(of: output.outputs).first(where: { !$0.options.isPrivate }) {
                throw ValidationError("--allow-input: over \(open.options) anyone on the network reads the input "
                                      + "link's token and every key typed; serve https:// (Podium makes a "
                                      + "certificate), or add --input-over-http to accept that")
            }
            if let monitorScale, !ExtendRequest.scales.contains(monitorScale) {
                throw ValidationError("--monitor-scale \(monitorScale): the scale must be "
                                      + "\(ExtendRequest.scales.lowerBound) to "
                                      + "\(ExtendRequest.scales.upperBound)")
            }
            if clean, size != nil || !sides.isEmpty || !output.outputs.isEmpty || allowInput || monitorScale != nil {
                throw ValidationError("--clean takes away what earlier runs left, and makes nothing: it takes no "
                                      + "size, side, --to, --allow-input or --monitor-scale")
            }
        }

        /// What was asked: the size and rate, beside which monitor.
        private var request: ExtendRequest {
            var request = size ?? ExtendRequest()
            request.scale = monitorScale ?? 1
            let sides: [(ExtendRequest.Side, String?)] = [(.rightOf, rightOf), (.leftOf, leftOf), (.above, above),
                                                          (.below, below)]
            if let (side, neighbour) = sides.first(where: { $0.1 != nil }) {
                (request.side, request.neighbour) = (side, neighbour)
            }
            return request
        }

        /// Whether the desktop is Wayland's: `--display` names a compositor's socket, or none is
        /// named and `$WAYLAND_DISPLAY` is set.
        private var onWayland: Bool {
            if let display { return !display.hasPrefix(":") }
            return !(Invocation.current.environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        }

        private var notes: URL { URL(fileURLWithPath: ControlAddress.directory) }

        /// The kinds of desktop a monitor can be added to.
        private enum Desktop {
            case x11, sway, gnome
            /// Another Wayland desktop, asked through its ScreenCast portal (KDE Plasma's makes
            /// virtual monitors).
            case portal

            /// The desktop at `display`: X11 unless it is Wayland's; then sway where its IPC
            /// answers, GNOME where Mutter's screen casting does, else the desktop's portal.
            init(display: String?, wayland: Bool) {
                self = !wayland ? .x11 : SwayVirtualOutput.answers(display: display) ? .sway
                    : MutterVirtualMonitor.isRunning ? .gnome : .portal
            }
        }

        /// A virtual monitor of the desktop's portal; where it makes none, what Podium needs.
        private static func portalMonitor() throws(PodiumError) -> any VirtualMonitor {
            do {
                let invocation = Invocation.current
                return try PortalVirtualMonitor { invocation.stopRequested }
            } catch where error.exitCode == .unavailable {
                throw .unavailable("this Wayland desktop cannot be given a monitor by Podium: it needs sway's IPC "
                                   + "(sway, and wlroots desktops that have it), GNOME's screen casting "
                                   + "(org.gnome.Mutter.ScreenCast) or a portal that makes virtual monitors (KDE "
                                   + "Plasma's); here, \(error.message)")
            }
        }

        func run() async throws {
            let (display, wayland, notes) = (self.display, onWayland, self.notes)
            let desktop = await onOwnThread("podium-extend") { Desktop(display: display, wayland: wayland) }
            let cleaned = try await onOwnThread("podium-extend") { () throws(PodiumError) -> [String] in
                switch desktop {
                case .x11: try RandRVirtualMonitor.clean(display: display)
                case .sway: try SwayVirtualOutput.clean(display: display, folder: notes)
                // Mutter and the portal take a monitor away when the run that made it leaves the bus.
                case .gnome, .portal: []
                }
            }
            if !cleaned.isEmpty {
                Console.say("took away what killed runs left: \(cleaned.joined(separator: ", "))")
            } else if clean {
                Console.say("nothing left behind by earlier runs")
            }
            guard !clean else { return }

            let outputs = output.outputs.isEmpty ? [try OutputCatalog.destination(parsing: Self.defaultViewer)]
                : output.outputs
            let job = StreamJob(outputs: outputs, hotkeys: hotkeys, scale: scale, encode: encode, sound: sound,
                                runOptions: runOptions)
            try await job.check()
            let (request, allowInput) = (self.request, self.allowInput)
            let monitor = try await onOwnThread("podium-extend") { () throws(PodiumError) -> any VirtualMonitor in
                switch desktop {
                case .x11: try RandRVirtualMonitor(display: display, request: request)
                case .sway: try SwayVirtualOutput(display: display, request: request, folder: notes)
                case .gnome: try MutterVirtualMonitor(request: request, input: allowInput)
                case .portal: try Self.portalMonitor()
                }
            }
            // A scaled monitor takes its size over its scale of a logical layout, all of it of a physical one.
            if monitor.rect.size != request.layoutSize && monitor.rect.size != request.size {
                Console.say("the desktop chose the monitor's size itself: \(monitor.rect.size), not \(request.size)")
            }
            let scaled = request.scale == 1 ? "" : " (scale \(request.scale), \(request.layoutSize) of the layout)"
            Console.say("a new monitor, \(monitor.name): \(request.size)\(scaled) at "
                        + "\(monitor.rect.x),\(monitor.rect.y), \(request.fps) Hz; it goes when the run ends")
            defer {
                do {
                    Console.say(try monitor.remove())
                } catch {
                    Console.say("\(error.said); podium extend --clean tries again")
                }
            }
            let input = allowInput ? try monitor.openInput() : nil
            let located = monitor.location.map { ["--display", $0.display, "--source", $0.source.description] } ?? []
            let capture = try CaptureOptions.parse(located + ["--fps", "\(request.fps)"])
            try await job.run(capture: capture, source: monitor.source, input: input)
        }
    }
}
