public import Logging
public import PodiumCore

/// What a PipeWire capture takes: a video node, and the size its first frame had.
public struct PipeWirePlan: Sendable {
    /// The node's id (`pw-cli ls Node`, or the portal's stream).
    public var node: UInt32
    /// Its pictures' size when the run was planned.
    public var size: PixelSize
    /// The size asked of a node that offers several (a virtual monitor takes its size from it);
    /// `nil` leaves the choice to the node.
    public var wantedSize: PixelSize?
    /// What it shows, for headings: `PipeWire node 42`, `the monitor shared through the portal`.
    public var name: String
    /// Where connections to PipeWire come from: the portal's session, or the user's own daemon
    /// when `nil`.
    public var remote: (any PipeWireRemote)?
    /// The pointer's picture is drawn where the stream sends it apart (its cursor metadata).
    public var drawsCursor = true
    /// Why the highlight and the zoom cannot be drawn: the stream does not say where the pointer
    /// is (a screen's producer may; a camera's does not). `nil` when it may.
    public var presenterToolsUnavailable: String?
    /// The producer sends at a rate of its own (a camera), not as its picture changes: a frame is
    /// held back when two meet in one slot's time, so that none is lost to the grid's phase.
    public var hasOwnRate = false

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
    /// A new connection to PipeWire (a descriptor the caller owns), or -1 for the user's own
    /// daemon; throws 69 when none can be had.
    func connect() throws(PodiumError) -> Int32
    /// Why the sharing ended, once the desktop ended it; `nil` while it goes on.
    var ended: String? { get }
}

extension PipeWirePlan: SourcePlan {
    public var display: String { "PipeWire" }

    public func openGrabber(bufferCount: Int, logger: Logger) throws(PodiumError) -> any FrameGrabber {
        try PipeWireCapture(plan: self, bufferCount: bufferCount, logger: logger)
    }
}

extension PipeWirePlan {
    /// Finds the video node `pipewire:NODE` names.
    public struct Resolver: SourceResolver {
        public init() {}

        public func resolve(_ lookup: SourceLookup) throws(PodiumError) -> (any SourcePlan)? {
            guard case .pipewire(let node) = lookup.request else { return nil }
            var plan = try PipeWirePlan.look(node: node)
            plan.drawsCursor = lookup.drawsCursor
            return plan
        }
    }
}
