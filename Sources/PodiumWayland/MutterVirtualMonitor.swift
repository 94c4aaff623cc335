import CPortal
public import PodiumCore
import Synchronization

/// A virtual monitor of GNOME's (Mutter's `RecordVirtual`, on `org.gnome.Mutter.ScreenCast`): the
/// desktop lays windows on it as on any monitor, and it exists as long as Podium's screen cast
/// session, read through the user's PipeWire. Mutter makes it when the capture connects and asks
/// for a size, so the capture asks for the size wanted.
///
/// Mutter ends the session when its caller leaves the bus, however it leaves: a run killed with
/// SIGKILL leaves nothing behind, and there is nothing for the next run to clean.
public final class MutterVirtualMonitor: VirtualMonitor, PipeWireRemote {
    public let name: String
    public let rect: PixelRect
    private let size: PixelSize
    private let takesInput: Bool
    private let plan: PipeWirePlan
    private let session: Mutex<Session>

    /// The session's bus connection, used under the lock (sd-bus connections take one caller at
    /// a time).
    private final class Session {
        let pointer: OpaquePointer

        init(_ pointer: OpaquePointer) {
            self.pointer = pointer
        }

        deinit { cmutter_close(pointer) }
    }


    /// Its stream, with this session as its remote: the run ends when the session does.
    public var source: (any SourcePlan)? {
        var plan = plan
        plan.remote = self
        return plan
    }

    /// Opens a screen cast session with a virtual monitor of `request`'s size, inside a remote
    /// desktop session when `input` (the only way Mutter takes input on it), and lays it beside
    /// the monitor the request names.
    /// - Throws: 64 for a neighbour that is not there (before the monitor is made); 69 when there
    ///   is no Mutter on the session bus, or it refuses.
    public init(request: ExtendRequest, input: Bool) throws(PodiumError) {
        let (session, node) = try Self.open(input: input)
        let before = try Self.monitors(session).monitors
        let neighbour: cmutter_monitor
        if let wanted = request.neighbour {
            guard let named = before.first(where: { $0.connectorName == wanted }) else {
                throw .usage("--\(request.side.rawValue) '\(wanted)': no such monitor; monitors here: "
                             + before.map(\.connectorName).joined(separator: ", "))
            }
            neighbour = named
        } else {
            guard let primary = before.first(where: { $0.primary != 0 }) ?? before.first else {
                throw .unavailable("GNOME (Mutter) has no monitor to put one beside")
            }
            neighbour = primary
        }
        // Mutter makes the monitor when the capture first asks for pictures of its size.
        var plan = try PipeWirePlan.look(node: node, name: "GNOME's virtual monitor", wantedSize: request.size)
        let (made, serial, logical) = try Self.monitors(session)
        let known = Set(before.map(\.connectorName))
        guard var ours = made.first(where: { !known.contains($0.connectorName) }) else {
            throw .unavailable("GNOME (Mutter) made no monitor for the screen cast")
        }
        let others = made.filter { $0.connectorName != ours.connectorName }
        // A physical layout (Mutter's default) counts a scaled monitor's every pixel.
        var placed = request
        if !logical { placed.scale = 1 }
        var place = placed.place(beside: neighbour.rect)
        // Never over another monitor: past the rightmost one that would be under it.
        while let covered = others.first(where: { $0.rect.intersects(place) }) {
            place.x = covered.rect.maxX
        }
        if place.x != ours.rect.x || place.y != ours.rect.y || request.scale != ours.scale {
            (ours.x, ours.y, ours.scale) = (Int32(place.x), Int32(place.y), request.scale)
            try Self.arrange(others + [ours], serial: serial, in: session)
        }
        let name = ours.connectorName
        rect = (try? Self.monitors(session))?.monitors.first { $0.connectorName == name }?.rect ?? place
        self.name = name
        self.session = Mutex(session)
        plan.drawsCursor = true
        self.plan = plan
        takesInput = input
        size = request.size
    }

    private static func open(input: Bool) throws(PodiumError) -> sending (Session, UInt32) {
        var pointer: OpaquePointer?
        var node: UInt32 = 0
        var error = [CChar](repeating: 0, count: 512)
        let code = cmutter_open(input ? 1 : 0, 1, &pointer, &node, &error, error.count)
        guard code == Int32(CPORTAL_OK), let pointer else {
            throw .unavailable(String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))
        }
        return (Session(pointer), node)
    }

    /// The desktop's monitors as Mutter says now, the configuration's serial, and whether its
    /// layout is logical (a scaled monitor takes less of it) rather than physical.
    private static func monitors(_ session: Session) throws(PodiumError)
        -> (monitors: [cmutter_monitor], serial: UInt32, logical: Bool) {
        var monitors = [cmutter_monitor](repeating: cmutter_monitor(), count: 16)
        var (serial, logical): (UInt32, Int32) = (0, 0)
        var error = [CChar](repeating: 0, count: 256)
        let count = cmutter_monitors(session.pointer, &monitors, Int32(monitors.count), &serial, &logical, &error,
                                     error.count)
        guard count >= 0 else {
            throw .unavailable(String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))
        }
        return (Array(monitors.prefix(Int(count))), serial, logical != 0)
    }

    /// Lays `monitors` out where they say, moved together so that the top left one is at 0,0
    /// (as Mutter wants).
    private static func arrange(_ monitors: [cmutter_monitor], serial: UInt32, in session: Session)
        throws(PodiumError) {
        var error = [CChar](repeating: 0, count: 256)
        let (left, top) = (monitors.map(\.x).min() ?? 0, monitors.map(\.y).min() ?? 0)
        let moved = monitors.map { monitor in
            var monitor = monitor
            (monitor.x, monitor.y) = (monitor.x - left, monitor.y - top)
            return monitor
        }
        guard cmutter_arrange(session.pointer, serial, moved, Int32(moved.count), &error, error.count) == 0 else {
            throw .unavailable(String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))
        }
    }

    /// Whether GNOME's screen casting answers on the session bus.
    public static var isRunning: Bool { cmutter_present() != 0 }

    public func openInput() throws(PodiumError) -> any InputInjector {
        guard takesInput else { throw .software("the GNOME session was opened without input") }
        // Mutter 43 drops the first key of a remote desktop session's keyboard (it makes the
        // device then): a Shift, pressed and let go, is that key.
        session.withLock { session in
            _ = cmutter_key(session.pointer, 0xFFE1, 1)
            _ = cmutter_key(session.pointer, 0xFFE1, 0)
        }
        return MutterInput(monitor: self)
    }

    public func remove() throws(PodiumError) -> String {
        let ended = session.withLock { session in
            defer { cmutter_stop(session.pointer) }
            return cmutter_ended(session.pointer) != 0
        }
        return ended ? "the monitor \(name) went with GNOME's screen cast session"
            : "took the monitor \(name) away (GNOME's screen cast session ended)"
    }

    /// The user's own PipeWire, where Mutter's streams are.
    public func connect() throws(PodiumError) -> Int32 { -1 }

    public var ended: String? {
        switch session.withLock({ cmutter_ended($0.pointer) }) {
        case 0: nil
        case 1: "GNOME (Mutter) ended the screen cast of the monitor"
        default: "GNOME (Mutter) went away"
        }
    }

    /// Plays `events` on the monitor: the pointer in its pixels, buttons as evdev's.
    fileprivate func play(_ events: [RemoteInput]) {
        session.withLock { session in
            for event in events {
                switch event {
                case .move(let x, let y):
                    _ = cmutter_pointer_to(session.pointer, x * Double(size.width), y * Double(size.height))
                case .button(let button, let down):
                    // evdev's BTN_LEFT, BTN_MIDDLE, BTN_RIGHT.
                    let code: Int32 = switch button { case 2: 0x112; case 3: 0x111; default: 0x110 }
                    _ = cmutter_button(session.pointer, code, down ? 1 : 0)
                case .key(let keysym, let down):
                    _ = cmutter_key(session.pointer, keysym, down ? 1 : 0)
                }
            }
        }
    }
}

extension cmutter_monitor {
    var connectorName: String {
        withUnsafeBytes(of: connector) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    var rect: PixelRect { PixelRect(x: Int(x), y: Int(y), width: Int(width), height: Int(height)) }
}

/// A viewer's pointer and keys on a Mutter virtual monitor, through its remote desktop session.
private struct MutterInput: InputInjector {
    let monitor: MutterVirtualMonitor

    func play(_ events: [RemoteInput]) { monitor.play(events) }

    /// GNOME does not say which monitor has the focus: the keys go to the window it focused.
    var keysReachTheScreen: Bool { true }
}
