import CXCB
import Foundation
public import PodiumCore

/// A monitor of an X screen that no cable drives. The screen grows (RandR `SetScreenSize`), and
/// an output with nothing plugged in is driven by an idle CRTC in a mode of Podium's over the new
/// part: the desktop sees a monitor as any other, and the pointer goes there (the X server keeps
/// it within CRTCs). Where no output and CRTC are spare, a RandR 1.5 monitor (`SetMonitor`) covers
/// the new part instead: windows can be put there, the pointer cannot follow.
///
/// The mode or monitor is named `PODIUM-<pid>`: a run killed before it could take it away leaves a
/// name whose process is gone, and the next run (or `podium extend --clean`) takes that away.
/// Xorg can grow its screen with any driver (the dummy one too); Xvfb's screen is fixed.
public final class RandRVirtualMonitor: VirtualMonitor {
    public let display: String
    public let name: String
    public let rect: PixelRect
    /// How it was made: a spare output driven by a CRTC in a mode of Podium's, or a monitor alone.
    private enum Kind {
        case driven(output: xcb_randr_output_t, crtc: xcb_randr_crtc_t, mode: xcb_randr_mode_t)
        case monitor(xcb_atom_t)
    }
    private let kind: Kind

    public var location: (display: String, source: SourceRequest)? { (display, .monitor(.name(name))) }

    /// Grows the screen of `display` and makes a monitor of `request`'s size over the new area.
    /// - Throws: 64 when the neighbour named is not there or the side cannot be grown; 69 when the
    ///   X server cannot grow its screen or has no RandR 1.5.
    public init(display: String?, request: ExtendRequest) throws(PodiumError) {
        guard request.scale == 1 else {
            throw .usage("an X screen has one scale for all its monitors; a monitor of its own scale needs a "
                         + "Wayland desktop", about: .monitorScale(request.scale))
        }
        let connection = try XConnection(display: display)
        let displayName = connection.displayName
        guard !connection.isXWayland else {
            throw .unavailable("\(displayName) is Xwayland, whose monitors are the Wayland compositor's",
                               remedy: .waylandDisplay)
        }
        let layout = connection.layout()
        guard !layout.monitors.isEmpty else {
            throw .unavailable("the X server \(displayName) has no RandR 1.5 monitors to add one to")
        }
        let neighbour = try Self.neighbour(request, among: layout.monitors)
        var place = request.place(beside: neighbour.rect)
        guard place.x >= 0, place.y >= 0 else {
            throw .usage("an X screen grows right and down only, and \(neighbour.name) is at its "
                         + "\(request.side == .leftOf ? "left" : "top") edge",
                         about: .neighbour(request.side, neighbour.name), remedy: .growRightOrDown)
        }
        // Never over another monitor: past the rightmost one that would be under it.
        while let covered = layout.monitors.first(where: { $0.rect.intersects(place) }) {
            place.x = covered.rect.maxX
        }
        let current = try connection.currentScreenSize()
        let needed = PixelSize(width: max(current.width, place.maxX), height: max(current.height, place.maxY))
        let range = try connection.screenSizeRange()
        guard needed.width <= range.width, needed.height <= range.height else {
            let fixed = range == current ? " (a fixed screen, as Xvfb's is; Xorg's grows, with any driver)" : ""
            throw .unavailable("the X server \(displayName) cannot grow its screen to \(needed) for a \(request.size) "
                               + "monitor at \(place.x),\(place.y): it goes up to \(range)\(fixed)")
        }
        let tag = "PODIUM-\(getpid())"
        self.display = displayName
        rect = place
        try connection.resize(to: needed)
        do {
            let resources = try connection.randrResources()
            if let spare = resources.spare {
                let mode = try connection.createMode(tag, size: request.size, fps: request.fps)
                kind = .driven(output: spare.output.id, crtc: spare.crtc, mode: mode)
                name = spare.output.name
                do {
                    try connection.check(xcb_randr_add_output_mode_checked(connection.raw, spare.output.id, mode))
                    try connection.setCrtc(spare.crtc, mode: mode, outputs: [spare.output.id], at: (place.x, place.y),
                                           configTimestamp: resources.configTimestamp)
                } catch {
                    Self.undo(kind, on: connection)
                    throw error
                }
            } else {
                let atom = connection.atoms([tag])[0]
                var info = xcb_randr_monitor_info_t(name: atom, primary: 0, automatic: 0, nOutput: 0,
                                                    x: Int16(place.x), y: Int16(place.y),
                                                    width: UInt16(place.width), height: UInt16(place.height),
                                                    width_in_millimeters: millimetres(place.width),
                                                    height_in_millimeters: millimetres(place.height))
                try connection.check(xcb_randr_set_monitor_checked(connection.raw, connection.root, &info))
                kind = .monitor(atom)
                name = tag
            }
        } catch {
            try? connection.resize(to: current)
            throw .unavailable("the X server \(displayName) refused a monitor at \(place): \(error)")
        }
    }

    public func openInput() throws(PodiumError) -> any InputInjector {
        guard case .driven = kind else {
            throw .unavailable("no output and CRTC of the X server \(display) were spare, so \(name) is "
                               + "a RandR monitor alone, where the X server does not let the pointer go",
                               about: .viewerInput)
        }
        return try XTestInput(display: display, area: rect)
    }

    public func remove() throws(PodiumError) -> String {
        let connection = try XConnection(display: display)
        Self.undo(kind, on: connection)
        try Self.shrink(connection)
        return "took the monitor \(name) away"
    }

    /// Takes away the monitors of runs that ended without doing it (killed).
    /// - Returns: their names.
    public static func clean(display: String?) throws(PodiumError) -> [String] {
        let connection = try XConnection(display: display)
        let isLeft = { (name: String) in
            guard name.hasPrefix("PODIUM-"), let pid = pid_t(name.dropFirst(7)), pid != getpid() else { return false }
            return kill(pid, 0) != 0 && errno == ESRCH
        }
        var cleaned: [String] = []
        for monitor in connection.layout().monitors where isLeft(monitor.name) {
            undo(.monitor(connection.atoms([monitor.name])[0]), on: connection)
            cleaned.append(monitor.name)
        }
        let resources = try connection.randrResources()
        for mode in resources.modes where isLeft(mode.name) {
            for crtc in resources.crtcs where crtc.mode == mode.id {
                for output in resources.outputs where crtc.outputs.contains(output.id) {
                    undo(.driven(output: output.id, crtc: crtc.id, mode: mode.id), on: connection)
                    cleaned.append(output.name)
                }
            }
            // A mode no CRTC shows any more (the run was killed midway).
            xcb_randr_destroy_mode(connection.raw, mode.id)
        }
        connection.flush()
        if !cleaned.isEmpty { try shrink(connection) }
        return cleaned
    }

    /// Takes the monitor away: the CRTC off, the mode gone; or the RandR monitor deleted.
    private static func undo(_ kind: Kind, on connection: XConnection) {
        switch kind {
        case .driven(let output, let crtc, let mode):
            let stamp = (try? connection.randrResources().configTimestamp) ?? 0
            try? connection.setCrtc(crtc, mode: 0, outputs: [], at: (0, 0), configTimestamp: stamp)
            try? connection.check(xcb_randr_delete_output_mode_checked(connection.raw, output, mode))
            try? connection.check(xcb_randr_destroy_mode_checked(connection.raw, mode))
        case .monitor(let atom):
            try? connection.check(xcb_randr_delete_monitor_checked(connection.raw, connection.root, atom))
        }
    }

    /// Shrinks the screen to what the monitors left cover.
    private static func shrink(_ connection: XConnection) throws(PodiumError) {
        let others = connection.layout().monitors.map(\.rect)
        guard let covered = others.dropFirst().reduce(others.first, { $0?.union($1) }),
              let current = try? connection.currentScreenSize() else { return }
        let size = PixelSize(width: min(current.width, covered.maxX), height: min(current.height, covered.maxY))
        guard size != current else { return }
        do {
            try connection.resize(to: size)
        } catch {
            throw .unavailable("the X server \(connection.displayName) kept its screen at \(current) after an extra "
                               + "monitor went (\(error))")
        }
    }

    /// The monitor named `request.neighbour`, or the primary (the first when none is).
    private static func neighbour(_ request: ExtendRequest, among monitors: [Monitor]) throws(PodiumError) -> Monitor {
        guard let wanted = request.neighbour else {
            return monitors.first(where: \.isPrimary) ?? monitors[0]
        }
        guard let found = monitors.first(where: { $0.name == wanted }) else {
            throw .usage("--\(request.side.rawValue) '\(wanted)': no such monitor; monitors here: "
                         + monitors.map { "\($0.index) \($0.name)" }.joined(separator: ", "))
        }
        return found
    }
}

/// A side's length at 96 pixels an inch, as a monitor's or a screen's size in millimetres.
private func millimetres(_ pixels: Int) -> UInt32 { UInt32(pixels * 254 / 960) }

extension XConnection {
    /// The screen's size now (the connection's setup says what it was when it opened).
    ///
    /// The corresponding C function is `xcb_get_geometry`.
    func currentScreenSize() throws(PodiumError) -> PixelSize {
        do {
            return try withReply({ xcb_get_geometry_reply($0, xcb_get_geometry($0, root), $1) }) {
                PixelSize(width: Int($0.pointee.width), height: Int($0.pointee.height))
            }
        } catch {
            throw .unavailable("the X server \(displayName) did not say its screen's size: \(error)")
        }
    }

    /// The largest screen RandR allows.
    func screenSizeRange() throws(PodiumError) -> PixelSize {
        do {
            return try withReply({ xcb_randr_get_screen_size_range_reply($0, xcb_randr_get_screen_size_range($0, root),
                                                                         $1) }) {
                PixelSize(width: Int($0.pointee.max_width), height: Int($0.pointee.max_height))
            }
        } catch {
            throw .unavailable("the X server \(displayName) did not say how large its screen may be: \(error)")
        }
    }

    /// Sets the screen's size, at 96 pixels an inch.
    func resize(to size: PixelSize) throws(PodiumError) {
        do {
            try check(xcb_randr_set_screen_size_checked(raw, root, UInt16(size.width), UInt16(size.height),
                                                        millimetres(size.width), millimetres(size.height)))
        } catch {
            throw .unavailable("the X server \(displayName) refused a screen of \(size): \(error)")
        }
    }
}
