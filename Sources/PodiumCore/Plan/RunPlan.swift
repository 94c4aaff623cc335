/// Everything a run is made of, decided before anything is opened: what is captured and how
/// often, the windows that show it, the encoders and the outputs they feed. The CLI makes one from
/// its flags (and a look at the displays); a builder turns it into a `Run`.
public struct RunPlan: Sendable {
    public var capture: CapturePlan
    public var fps: FrameRate
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

/// What an X11 screen capture takes: a rectangle of one display's screen, and how to grab it.
public struct CapturePlan: Sendable {
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
    /// How often an unchanged screen is still grabbed and sent on.
    public var idleFPS: FrameRate

    public init(display: String, region: PixelRect, monitorName: String? = nil, drawsCursor: Bool = true,
                sharedMemory: Bool = true, tracksDamage: Bool = true, idleFPS: FrameRate = FrameRate(1)) {
        self.display = display
        self.region = region
        self.monitorName = monitorName
        self.drawsCursor = drawsCursor
        self.sharedMemory = sharedMemory
        self.tracksDamage = tracksDamage
        self.idleFPS = idleFPS
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
