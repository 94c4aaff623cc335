public import Logging
public import PodiumCore

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

extension ScreenPlan: SourcePlan {
    public var name: String { region.description }
    public var size: PixelSize { region.size }
    /// Its grabber says where the pointer is, and when it clicked.
    public var presenterToolsUnavailable: String? { nil }
    /// The pen's window lies over the captured area, and the grab takes its strokes with the screen.
    public var penUnavailable: String? { nil }

    public func openPen(_ pen: PenControl) throws(PodiumError) -> any PenSurface {
        try PenOverlay(display: display, area: region, pen: pen)
    }

    public func openGrabber(bufferCount: Int, logger: Logger)
        throws(PodiumError) -> any FrameGrabber {
        try ScreenCapture(plan: self, bufferCount: bufferCount, logger: logger)
    }
}
