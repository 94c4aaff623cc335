/// Everything a run is made of, decided before anything is opened: what is captured and how
/// often, the windows that show it, the encoders and the outputs they feed. The CLI makes one from
/// its flags (and a look at the displays); a builder turns it into a `Run`.
public struct RunPlan: Sendable {
    public var capture: CapturePlan
    /// The rate capture starts at.
    public var fps: FrameRate
    /// The rates keys, the control socket and the budget may change it to.
    public var frameRates: ClosedRange<Int> = FrameRate.range
    /// What chooses the rate as the run goes (`--fps auto`, `--max-cpu`); `nil`: the user does.
    public var budget: FrameRateBudget?
    public var windows: [WindowPlan]
    public var encoding: EncodingPlan
    /// The run's sound (`--audio`), carried by every output that writes a file or a stream.
    public var sound: SoundPlan?
    public var limits: Run.Limits

    public init(capture: CapturePlan, fps: FrameRate, windows: [WindowPlan] = [], encoding: EncodingPlan,
                sound: SoundPlan? = nil, limits: Run.Limits = .init()) {
        self.capture = capture
        self.fps = fps
        self.windows = windows
        self.encoding = encoding
        self.sound = sound
        self.limits = limits
    }

    /// Whether someone other than the person at the terminal may want to change the run as it
    /// goes: it sends to the network, serves viewers or shows a window (a recording alone is not).
    public var isShared: Bool {
        !windows.isEmpty || !encoding.viewers.isEmpty || encoding.sinks.contains {
            switch $0 {
            case .file, .hls: false
            default: true
            }
        }
    }

    /// The first encoder's rate control, which changes of bit rate or quality are said in.
    public var plannedRate: EncoderRate? {
        encoding.encodings.first?.settings.rate
    }

    /// The counters of a run of this plan: one per source and window, encoder and output that
    /// gets packets.
    public func counters() -> RunCounters {
        RunCounters(targetFPS: fps.framesPerSecond, sinkURLs: encoding.sinks.map(\.description),
                    renditions: encoding.encodings.indices.map {
                        (name: encoding.encodings[$0].name, outputs: encoding.outputs(ofEncoding: $0))
                    },
                    windows: windows.count, servesViewers: !encoding.viewers.isEmpty,
                    sound: sound.map { ("\($0.codec) \($0.bitrate)", $0.inputs.map(\.description)) })
    }
}

/// What a run captures: one source, or two composed into one picture by a layout, and how often
/// an unchanged picture is still sent on.
public struct CapturePlan: Sendable {
    /// Two sources composed into one picture.
    public struct Composition: Sendable {
        /// How they share it at first (keys change it as the run goes).
        public var layout: Layout
        /// The composed picture's size (even sides).
        public var canvas: PixelSize
        /// How each source is scaled to its place.
        public var filter: ScaleFilter

        public init(layout: Layout, canvas: PixelSize, filter: ScaleFilter) {
            self.layout = layout
            self.canvas = canvas.roundedToEven
            self.filter = filter
        }
    }

    /// The sources, the primary first.
    public var sources: [SourcePlan]
    /// With two sources, how they are composed.
    public var composition: Composition?
    /// How often an unchanged picture is still grabbed and sent on.
    public var idleFPS: FrameRate
    /// `--highlight-pointer`: on from the start with this look; `nil` until `h`.
    public var highlight: PointerHighlight?
    /// `--zoom`: the factor at the start.
    public var zoom = 1

    public init(sources: [SourcePlan], composition: Composition? = nil, idleFPS: FrameRate = FrameRate(1)) {
        self.sources = sources
        self.composition = composition
        self.idleFPS = idleFPS
    }

    /// One source.
    public init(_ source: SourcePlan, idleFPS: FrameRate = FrameRate(1)) {
        self.init(sources: [source], idleFPS: idleFPS)
    }

    /// The size of the pictures the run captures, which encoders and windows are planned from.
    public var size: PixelSize { composition?.canvas ?? sources.first?.size ?? PixelSize(width: 0, height: 0) }

    /// Whether the pointer is drawn into the picture.
    public var drawsCursor: Bool { sources.contains(where: \.drawsCursor) }
}

/// One source of pictures, and how it is grabbed.
public enum SourcePlan: Sendable {
    /// A monitor or a rectangle of an X display's screen.
    case screen(ScreenPlan)
    /// One X window's own pixels (`--window`).
    case window(WindowSourcePlan)
    /// One output of a Wayland compositor (`--source wlr`).
    case wayland(WaylandScreenPlan)
    /// A PipeWire video stream (`--source pipewire:NODE`).
    case pipewire(PipeWirePlan)

    /// The X display it is on (`:0`).
    public var display: String {
        switch self {
        case .screen(let screen): screen.display
        case .window(let window): window.display
        case .wayland(let output): output.display
        case .pipewire: "PipeWire"
        }
    }

    /// What it shows on its display, for headings: the rectangle of the screen (`1920x1080+0+0`),
    /// or the window (`window 'Slides' (0x1a00007)`).
    public var name: String {
        switch self {
        case .screen(let screen): screen.region.description
        case .window(let window): "window \(window.window.label)"
        case .wayland(let output): output.output
        case .pipewire(let stream): stream.name
        }
    }

    /// Its size when the run was planned.
    public var size: PixelSize {
        switch self {
        case .screen(let screen): screen.region.size
        case .window(let window): window.window.rect.size
        case .wayland(let output): output.size
        case .pipewire(let stream): stream.size
        }
    }

    /// Whether it is grabbed from an X server (whose grabbers draw the presenter's tools).
    public var isX11: Bool {
        switch self {
        case .screen, .window: true
        case .wayland, .pipewire: false
        }
    }

    public var drawsCursor: Bool {
        switch self {
        case .screen(let screen): screen.drawsCursor
        case .window(let window): window.drawsCursor
        case .wayland(let output): output.drawsCursor
        case .pipewire: true
        }
    }
}

/// What an X11 screen capture takes: a rectangle of one display's screen, and how to grab it.
public struct ScreenPlan: Sendable {
    /// The X display (`:0`).
    public var display: String
    /// The captured rectangle, in root window coordinates; checked against the screen.
    public var region: PixelRect
    /// The RandR monitor captured, followed when the screen's layout changes; `nil` for a region.
    public var monitorName: String?
    /// `--cursor`: draw the pointer in.
    public var drawsCursor: Bool
    /// MIT-SHM when the server shares memory (`--no-shm` turns it off).
    public var sharedMemory: Bool
    /// Grab only what changed (Damage); `--constant-fps` grabs every slot whole.
    public var tracksDamage: Bool
    /// The windows painted black in every frame.
    public var masks = PrivacyMasks()
    /// `--show-region`: a border around the captured area on the screen, outside it.
    public var showsRegion = false

    public init(display: String, region: PixelRect, monitorName: String? = nil, drawsCursor: Bool = true,
                sharedMemory: Bool = true, tracksDamage: Bool = true) {
        self.display = display
        self.region = region
        self.monitorName = monitorName
        self.drawsCursor = drawsCursor
        self.sharedMemory = sharedMemory
        self.tracksDamage = tracksDamage
    }
}

/// What a Wayland capture takes: one output of a compositor, by name, and how to copy it.
public struct WaylandScreenPlan: Sendable {
    /// The compositor's socket (`wayland-1`, or a path).
    public var display: String
    /// The output (`HEADLESS-1`, `DP-1`).
    public var output: String
    /// Its size when the run was planned.
    public var size: PixelSize
    /// `--cursor`: the compositor draws the pointer in.
    public var drawsCursor: Bool
    /// Copy only when the output changed (screencopy's damage); `--constant-fps` copies every slot.
    public var tracksDamage: Bool

    public init(display: String, output: String, size: PixelSize, drawsCursor: Bool = true, tracksDamage: Bool = true) {
        self.display = display
        self.output = output
        self.size = size
        self.drawsCursor = drawsCursor
        self.tracksDamage = tracksDamage
    }
}

/// What a PipeWire capture takes: a video node, and the size its first frame had.
public struct PipeWirePlan: Sendable {
    /// The node's id (`pw-cli ls Node`, or the portal's stream).
    public var node: UInt32
    /// Its pictures' size when the run was planned.
    public var size: PixelSize
    /// What it shows, for headings: `PipeWire node 42`, `the monitor shared through the portal`.
    public var name: String
    /// Where connections to PipeWire come from: the portal's session, or the user's own daemon
    /// when `nil`.
    public var remote: (any PipeWireRemote)?

    public init(node: UInt32, size: PixelSize, name: String? = nil, remote: (any PipeWireRemote)? = nil) {
        self.node = node
        self.size = size
        self.name = name ?? "PipeWire node \(node)"
        self.remote = remote
    }
}

/// A PipeWire reached through someone else's door: the ScreenCast portal's session, which hands
/// out connections to the stream the user shared, and ends when the desktop stops sharing.
public protocol PipeWireRemote: AnyObject, Sendable {
    /// A new connection to PipeWire (a descriptor the caller owns); throws 69 when none can be had.
    func connect() throws(PodiumError) -> Int32
    /// Why the sharing ended, once the desktop ended it; `nil` while it goes on.
    var ended: String? { get }
}

/// What an X11 window capture takes: the window found when the run was planned, what to look
/// for when it closes, and how to grab it.
public struct WindowSourcePlan: Sendable {
    /// The X display (`:0`).
    public var display: String
    /// The window as it was when the run was planned: its id, title and size.
    public var window: ClientWindow
    /// What a window that replaces it must match when it closes: the name asked for, or the
    /// window's title when it was named by id or picked.
    public var awaitedName: String
    /// `--cursor`: draw the pointer in when it is over the window.
    public var drawsCursor: Bool
    /// MIT-SHM when the server shares memory (`--no-shm` turns it off).
    public var sharedMemory: Bool
    /// Grab only what changed (Damage); `--constant-fps` grabs every slot whole.
    public var tracksDamage: Bool
    /// `--exit-when-gone`: the run ends when the window closes, instead of waiting for another.
    public var exitWhenGone: Bool

    public init(display: String, window: ClientWindow, awaitedName: String? = nil, drawsCursor: Bool = true,
                sharedMemory: Bool = true, tracksDamage: Bool = true, exitWhenGone: Bool = false) {
        self.display = display
        self.window = window
        self.awaitedName = awaitedName ?? window.title
        self.drawsCursor = drawsCursor
        self.sharedMemory = sharedMemory
        self.tracksDamage = tracksDamage
        self.exitWhenGone = exitWhenGone
    }
}

/// A window that shows the captured picture on a monitor (`podium mirror`, `--to window`).
public struct WindowPlan: Sendable {
    /// The display it shows on.
    public var display: String
    public var target: WindowTarget
    public var windowed: Bool
    public var pictureInPicture: PictureInPicture?
    public var fit: FitMode
    public var background: RGBColor
    public var filter: ScaleFilter
    /// Names the source, such as `Podium · :0 eDP-1`.
    public var title: String
    /// The captured size, for the picture-in-picture window's aspect.
    public var pictureSize: PixelSize

    public init(display: String, target: WindowTarget, windowed: Bool = false,
                pictureInPicture: PictureInPicture? = nil,
                fit: FitMode = .contain, background: RGBColor = RGBColor(red: 0, green: 0, blue: 0),
                filter: ScaleFilter = .box, title: String, pictureSize: PixelSize) {
        self.display = display
        self.target = target
        self.windowed = windowed
        self.pictureInPicture = pictureInPicture
        self.fit = fit
        self.background = background
        self.filter = filter
        self.title = title
        self.pictureSize = pictureSize
    }
}
