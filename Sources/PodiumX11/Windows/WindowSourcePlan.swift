public import Logging
public import PodiumCore

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

extension WindowSourcePlan: SourcePlan {
    public var name: String { "window \(window.label)" }
    public var size: PixelSize { window.rect.size }
    /// Its grabber says where the pointer is over the window, and when it clicked.
    public var presenterToolsUnavailable: String? { nil }

    public func openGrabber(bufferCount: Int, logger: Logger) throws(PodiumError) -> any FrameGrabber {
        try WindowCapture(plan: self, bufferCount: bufferCount, logger: logger)
    }
}
