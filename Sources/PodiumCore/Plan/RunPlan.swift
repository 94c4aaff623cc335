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
        !windows.isEmpty || !encoding.viewers.isEmpty || encoding.sinks.contains { !$0.isLocal }
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
    public var sources: [any SourcePlan]
    /// With two sources, how they are composed.
    public var composition: Composition?
    /// How often an unchanged picture is still grabbed and sent on; `nil`: only for an encoder
    /// asked for a keyframe (no output needs repeats).
    public var idleFPS: FrameRate?
    /// `--highlight-pointer`: on from the start with this look; `nil` until `h`.
    public var highlight: PointerHighlight?
    /// `--zoom`: the factor at the start.
    public var zoom = 1
    /// `--pen-keep`: the pen's strokes stay when pen mode ends.
    public var penKeepsStrokes = false

    public init(sources: [any SourcePlan], composition: Composition? = nil, idleFPS: FrameRate? = FrameRate(1)) {
        self.sources = sources
        self.composition = composition
        self.idleFPS = idleFPS
    }

    /// One source.
    public init(_ source: any SourcePlan, idleFPS: FrameRate? = FrameRate(1)) {
        self.init(sources: [source], idleFPS: idleFPS)
    }

    /// The size of the pictures the run captures, which encoders and windows are planned from.
    public var size: PixelSize { composition?.canvas ?? sources.first?.size ?? PixelSize(width: 0, height: 0) }

    /// Whether the pointer is drawn into the picture.
    public var drawsCursor: Bool { sources.contains(where: \.drawsCursor) }
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
