public import Foundation
public import PodiumCore

/// A headless output of sway, made over its IPC (`create_output`), sized and placed as asked:
/// sway lays windows on it as on any output, and screencopy captures it. Taken away at the end
/// (`output NAME unplug`). A sway before 1.8 has no unplug, and cannot disable a headless output
/// either (it says yes, and keeps it): there it stays, and the next run takes it again rather
/// than make another.
///
/// sway names its headless outputs itself (`HEADLESS-2`), so what Podium made is written down in
/// `folder` (the control sockets' own): a run killed before it could take its output away leaves
/// a note whose process is gone, which the next run (or `podium extend --clean`) acts on.
public final class SwayVirtualOutput: VirtualMonitor {
    /// The compositor's Wayland socket, and its IPC socket.
    public let display: String
    private let ipcSocket: String
    public let name: String
    public let rect: PixelRect
    private let note: URL

    public var location: (display: String, source: SourceRequest)? { (display, .wlr(.name(name))) }

    /// An output as `get_outputs` tells of it.
    fileprivate struct Output: Decodable {
        struct Rect: Decodable {
            var x = 0, y = 0, width = 0, height = 0
        }
        var name: String
        var active: Bool?
        var focused: Bool?
        var rect = Rect()
        var pixels: PixelRect { PixelRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height) }
    }

    /// What is written down of an output Podium made: where, which, and whose.
    private struct Note: Codable {
        var ipcSocket: String
        var output: String
        /// The run that uses it; 0 for one disabled that the next run may take again.
        var pid: Int32
    }

    /// Makes an output of `request`'s size beside the one it names (the focused one by default).
    /// - Parameters:
    ///   - display: the compositor's Wayland socket (`$WAYLAND_DISPLAY` when `nil`).
    ///   - folder: where Podium writes down the outputs it made.
    /// - Throws: 64 for a neighbour that is not there; 69 when sway's IPC is not there or refuses.
    public init(display: String?, request: ExtendRequest, folder: URL) throws(PodiumError) {
        let connection = try WaylandDisplay(name: display)
        self.display = connection.name
        let ipc = try Self.ipc(for: connection.name)
        ipcSocket = ipc.path
        let outputs = try Self.outputs(ipc)
        let active = outputs.filter { $0.active != false }
        let neighbour: Output
        if let wanted = request.neighbour {
            guard let named = active.first(where: { $0.name == wanted }) else {
                throw .usage("--\(request.side.rawValue) '\(wanted)': no such output; outputs here: "
                             + active.map(\.name).joined(separator: ", "))
            }
            neighbour = named
        } else {
            guard let chosen = active.first(where: { $0.focused == true }) ?? active.first else {
                throw .unavailable("sway at \(ipc.path) has no output to put one beside")
            }
            neighbour = chosen
        }
        var place = request.place(beside: neighbour.pixels)
        // Never over another output (a spare one aside): past the rightmost one that would be under it.
        let spares = Self.notes(in: folder).filter { $0.value.pid == 0 && $0.value.ipcSocket == ipc.path }
        let spareNames = Set(spares.map(\.value.output))
        while let covered = active.first(where: { !spareNames.contains($0.name) && $0.pixels.intersects(place) }) {
            place.x = covered.pixels.maxX
        }
        // An earlier run's, which a sway before 1.8 kept, is taken again.
        let spare = spares.first { note in outputs.contains { $0.name == note.value.output } }
        let made: String
        if let spare {
            try? FileManager.default.removeItem(at: spare.url)
            made = spare.value.output
        } else {
            try Self.command("create_output", on: ipc)
            let before = Set(outputs.map(\.name))
            guard let new = try Self.outputs(ipc).first(where: { !before.contains($0.name) }) else {
                throw .unavailable("sway at \(ipc.path) made no new output")
            }
            made = new.name
        }
        name = made
        rect = place
        note = folder.appendingPathComponent("extend-\(getpid()).json")
        Self.write(Note(ipcSocket: ipc.path, output: made, pid: getpid()), to: note, folder: folder)
        do {
            try Self.command("output \(made) enable mode \(request.size)@\(request.fps)Hz position \(place.x) "
                             + "\(place.y) scale \(request.scale)", on: ipc)
        } catch {
            _ = try? remove()
            throw error
        }
    }

    public func openInput() throws(PodiumError) -> any InputInjector {
        SwayInput(devices: try WaylandVirtualInput(display: display, output: name), ipcSocket: ipcSocket,
                  output: name)
    }

    /// The virtual pointer and keyboard on the output, whose keys go only while sway's focus is on it.
    private struct SwayInput: InputInjector {
        let devices: WaylandVirtualInput
        let ipcSocket: String
        let output: String

        func play(_ events: [RemoteInput]) { devices.play(events) }

        /// Asked once sway took the events before (a click there moves its focus).
        var keysReachTheScreen: Bool {
            devices.settle()
            guard let ipc = try? SwayIPC(socket: ipcSocket), let outputs = try? SwayVirtualOutput.outputs(ipc) else {
                return false
            }
            return outputs.contains { $0.name == output && $0.focused == true }
        }
    }

    public func remove() throws(PodiumError) -> String {
        let ipc = try SwayIPC(socket: ipcSocket)
        let kept = try Self.takeAway(name, on: ipc)
        let folder = note.deletingLastPathComponent()
        try? FileManager.default.removeItem(at: note)
        guard kept else { return "took the monitor \(name) away" }
        Self.write(Note(ipcSocket: ipcSocket, output: name, pid: 0),
                   to: folder.appendingPathComponent("extend-spare-\(name).json"), folder: folder)
        return "sway before 1.8 cannot take an output away (no 'output unplug'), nor disable a headless one: "
            + "\(name) stays, and the next podium extend takes it again"
    }

    /// Takes away the outputs of runs that ended without doing it (killed), on the compositor at
    /// `display`.
    /// - Returns: their names.
    public static func clean(display: String?, folder: URL) throws(PodiumError) -> [String] {
        let connection = try WaylandDisplay(name: display)
        let ipc = try Self.ipc(for: connection.name)
        var cleaned: [String] = []
        for (url, note) in notes(in: folder) where note.pid != 0 && kill(note.pid, 0) != 0 && errno == ESRCH {
            try? FileManager.default.removeItem(at: url)
            guard note.ipcSocket == ipc.path else { continue }
            if try takeAway(note.output, on: ipc) {
                write(Note(ipcSocket: ipc.path, output: note.output, pid: 0),
                      to: folder.appendingPathComponent("extend-spare-\(note.output).json"), folder: folder)
            }
            cleaned.append(note.output)
        }
        return cleaned
    }

    /// Unplugs the output `name`; where sway cannot (before 1.8), disables it, which a headless
    /// one there does not take either.
    /// - Returns: whether it is still there.
    private static func takeAway(_ name: String, on ipc: SwayIPC) throws(PodiumError) -> Bool {
        do {
            try command("output \(name) unplug", on: ipc)
            return false
        } catch {
            try? command("output \(name) disable", on: ipc)
            return try outputs(ipc).contains { $0.name == name }
        }
    }

    /// Whether the compositor at `display` (`$WAYLAND_DISPLAY` when `nil`) answers on sway's IPC.
    public static func answers(display: String?) -> Bool {
        guard let connection = try? WaylandDisplay(name: display) else { return false }
        return (try? ipc(for: connection.name)) != nil
    }

    private static func ipc(for display: String) throws(PodiumError) -> SwayIPC {
        let sockets = SwayWindows.socketPaths(display: display, environment: ProcessInfo.processInfo.environment)
        var failure: PodiumError?
        for socket in sockets {
            do throws(PodiumError) {
                return try SwayIPC(socket: socket)
            } catch {
                failure = failure ?? error
            }
        }
        throw failure ?? .unavailable("a monitor of a Wayland desktop is made through sway's IPC, and there is none "
                                      + "for '\(display)' (no $SWAYSOCK, no sway-ipc socket beside it); sway (and "
                                      + "other wlroots desktops with its IPC) can make one")
    }

    fileprivate static func outputs(_ ipc: SwayIPC) throws(PodiumError) -> [Output] {
        do {
            return try JSONDecoder().decode([Output].self, from: try ipc.ask(.outputs))
        } catch let error as PodiumError {
            throw error
        } catch {
            throw .unavailable("sway's IPC sent outputs Podium cannot read: \(error)")
        }
    }

    /// Runs a sway command.
    /// - Throws: 69 with sway's own words when it refuses.
    private static func command(_ text: String, on ipc: SwayIPC) throws(PodiumError) {
        struct Outcome: Decodable {
            var success: Bool
            var error: String?
        }
        let reply = try ipc.ask(.command, text)
        let outcomes = (try? JSONDecoder().decode([Outcome].self, from: reply)) ?? []
        guard !outcomes.isEmpty, outcomes.allSatisfy(\.success) else {
            let said = outcomes.compactMap(\.error).joined(separator: "; ")
            throw .unavailable("sway refused '\(text)'\(said.isEmpty ? "" : ": \(said)")")
        }
    }

    private static func notes(in folder: URL) -> [(url: URL, value: Note)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasPrefix("extend-") && $0.hasSuffix(".json") }.compactMap { name in
            let url = folder.appendingPathComponent(name)
            guard let data = try? Data(contentsOf: url), let note = try? JSONDecoder().decode(Note.self, from: data)
            else { return nil }
            return (url, note)
        }
    }

    private static func write(_ note: Note, to url: URL, folder: URL) {
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        try? JSONEncoder().encode(note).write(to: url, options: .atomic)
    }
}
