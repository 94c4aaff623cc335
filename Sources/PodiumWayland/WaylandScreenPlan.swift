public import Logging
public import PodiumCore

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
    /// The windows painted black, followed through sway's IPC at `ipcSocket`.
    public var masks = PrivacyMasks()
    public var ipcSocket: String?
    /// Whether the compositor has wlroots' layer shell, which the pen's surface needs.
    public var hasLayerShell = false

    public init(display: String, output: String, size: PixelSize, drawsCursor: Bool = true, tracksDamage: Bool = true) {
        self.display = display
        self.output = output
        self.size = size
        self.drawsCursor = drawsCursor
        self.tracksDamage = tracksDamage
    }
}

extension WaylandScreenPlan: SourcePlan {
    public var name: String { output }
    /// A wlroots compositor tells no other client where the pointer is: screencopy draws it in or
    /// leaves it out, and says nothing of its place.
    public var presenterToolsUnavailable: String? {
        "the compositor's screencopy does not say where the pointer is "
            + "(a portal that sends the cursor as metadata does)"
    }

    public var penUnavailable: String? {
        hasLayerShell ? nil : "the Wayland compositor at '\(display)' has no layer shell to draw above its windows"
    }

    public func openPen(_ pen: PenControl) throws(PodiumError) -> any PenSurface {
        try PenLayer(display: display, output: output, pen: pen)
    }

    public func openGrabber(bufferCount: Int, logger: Logger)
        throws(PodiumError) -> any FrameGrabber {
        let capture = try ScreencopyCapture(plan: self, bufferCount: bufferCount, logger: logger)
        guard !masks.isEmpty, let ipcSocket else { return capture }
        return MaskedCapture(source: capture, windows: try SwayWindows(socket: ipcSocket, output: output, masks: masks),
                             bufferCount: bufferCount)
    }
}
