public import Logging

/// One source of pictures as the run plans it: looked up before anything is opened, then opened
/// on the capture thread. Each kind lives in the module of the library that grabs it (an X11
/// screen or window in PodiumX11, a Wayland output or a PipeWire stream in PodiumWayland), so a
/// new kind is a new conforming type and a `SourceResolver` that finds it: nothing in the graph,
/// the builder or the plan switches over kinds.
public protocol SourcePlan: Sendable {
    /// Where it is, for headings: the X display (`:0`), the compositor's socket, `PipeWire`.
    var display: String { get }
    /// What it shows there, for headings: the rectangle of the screen (`1920x1080+0+0`), the
    /// window (`window 'Slides' (0x1a00007)`), the output (`HEADLESS-1`).
    var name: String { get }
    /// Its size when the run was planned.
    var size: PixelSize { get }
    /// Whether the pointer is drawn into its pictures.
    var drawsCursor: Bool { get }
    /// Why the presenter's tools (the highlight, the zoom) cannot be drawn over its pictures;
    /// `nil` when its grabber says where the pointer is (`FrameGrabber.pointer`).
    var presenterToolsUnavailable: String? { get }
    /// Why the presenter's pen cannot draw over it; `nil` when `openPen` makes its overlay.
    var penUnavailable: String? { get }

    /// Opens what grabs its pictures. Called on the capture thread, which owns the grabber from
    /// then on.
    /// - Parameters:
    ///   - bufferCount: pictures that may be in flight at once downstream.
    /// - Throws: 69 when the source cannot be opened.
    func openGrabber(bufferCount: Int, logger: Logger) throws(PodiumError) -> any FrameGrabber

    /// Makes the pen's overlay over what it shows, on the presenter's own screen (which the capture
    /// then has in every output). Called on the pen's own thread, which runs it.
    /// - Throws: 69 when it cannot be made.
    func openPen(_ pen: PenControl) throws(PodiumError) -> any PenSurface
}

extension SourcePlan {
    public var presenterToolsUnavailable: String? { "\(name) does not say where the pointer is" }
    public var penUnavailable: String? {
        "it draws over an X11 screen or a wlroots compositor's output, and this run captures \(name)"
    }

    public func openPen(_ pen: PenControl) throws(PodiumError) -> any PenSurface {
        throw .unavailable("the pen: \(penUnavailable ?? name)")
    }
}

/// Finds the sources of one kind at plan time: a `SourceLookup` asks each resolver in turn, and
/// the one whose kind the request names answers. Blocks (it connects to the display or the
/// desktop): call it off the cooperative pool.
public protocol SourceResolver: Sendable {
    /// The source `lookup` asks for; `nil` when its request names another kind.
    /// - Throws: 69 when the source is not there; 64 when the request cannot be honoured.
    func resolve(_ lookup: SourceLookup) throws(PodiumError) -> (any SourcePlan)?
}

/// What one source is looked up by: the request, and the capture settings every source of a run
/// shares (some kinds use only a few of them).
public struct SourceLookup: Sendable {
    /// What happens while sources are looked up that the user should be told of; the CLI words it.
    public enum Event: Sendable, Equatable {
        /// A window is picked by a click, which is awaited now.
        case pickingWindow
        /// No source was named in a Wayland session: its compositor's output is captured.
        case waylandScreencopy
        /// No source was named in a Wayland session whose compositor does not copy its outputs:
        /// the desktop's portal is asked.
        case waylandPortal
        /// The desktop's portal shows its dialog (nothing was remembered).
        case portalDialog
        /// Something worth saying that stops nothing (a choice that could not be kept).
        case notice(String)
    }

    /// The source asked for; `nil` for the default (the primary monitor, or the Wayland desktop's).
    public var request: SourceRequest?
    /// The display named (`--display`); `nil` for the environment's.
    public var display: String?
    /// The monitor named for a screen or a Wayland output.
    public var monitor: MonitorSelector?
    /// A rectangle of an X screen.
    public var region: PixelRect?
    public var drawsCursor = true
    /// MIT-SHM where the X server shares memory.
    public var sharedMemory = true
    /// Grab only what changed; `false` grabs every slot whole.
    public var tracksDamage = true
    /// A captured window's closing ends the run.
    public var exitWhenGone = false
    /// The windows painted black on a captured screen.
    public var masks = PrivacyMasks()
    /// A border shown around a captured screen area.
    public var showsRegion = false
    /// The desktop portal's remembered choice is dropped and the user asked again.
    public var forgetsChoice = false
    /// Told what the user should know as it happens (on the looking-up thread).
    public var events: @Sendable (Event) -> Void = { _ in }
    /// Whether the user asked to stop (Ctrl-C) while a dialog or a click is awaited.
    public var stopRequested: @Sendable () -> Bool = { false }

    public init(request: SourceRequest? = nil, display: String? = nil) {
        self.request = request
        self.display = display
    }
}
