public import Foundation
import Synchronization

/// The desktop's ScreenCast and Camera portals for one test: `Scripts/mock-portal` on a session bus of its
/// own, sharing a PipeWire node, answering as asked. Stopped when released.
public final class MockPortal: Sendable {
    public let folder: URL
    private let process: RunningCommand

    /// - Parameters:
    ///   - node: the PipeWire node it shares.
    ///   - pipewire: the runtime folder of the PipeWire it connects Podium to.
    ///   - answer: `ok`, `cancel`, `fail` or `never` (the dialog stays open).
    ///   - absent: a session bus without the portal.
    ///   - cursorModes: the cursor modes it offers (1 hidden, 2 embedded, 4 metadata).
    ///   - camera: the Camera portal: `none` (it says there is no camera), `ok` or `cancel` (the
    ///     user's answer to its dialog).
    ///   - shortcuts: the GlobalShortcuts portal: `none` (it has none), `ok` or `cancel`.
    ///   - sourceTypes: what it shares (1 monitors, 2 windows, 4 virtual monitors it makes).
    public init(node: Int = 0, pipewire: URL? = nil, answer: String = "ok", absent: Bool = false,
                cursorModes: Int = 7, camera: String = "none", shortcuts: String = "none",
                sourceTypes: Int = 3) throws {
        folder = try Tools.temporaryFolder().appendingPathComponent("portal")
        let script = Tools.repository.appendingPathComponent("Scripts/mock-portal").path
        var arguments = ["--dir", folder.path, "--node", "\(node)", "--answer", answer]
        arguments += (pipewire.map { ["--pipewire", $0.appendingPathComponent("pipewire-0").path] } ?? [])
        arguments += (absent ? ["--absent"] : []) + ["--cursor-modes", "\(cursorModes)", "--camera", camera,
                                                         "--shortcuts", shortcuts, "--source-types", "\(sourceTypes)"]
        process = try Tools.start(script, arguments)
        try process.waitForStderr(containing: "mock-portal: ready", timeout: 20)
    }

    deinit { _ = try? process.interrupt(timeout: 10) }

    /// Stops sharing, as the user would in the desktop's own indicator.
    public func stopSharing() {
        process.signal(SIGUSR1)
    }

    /// Presses the global shortcuts `ids` (`white`, `blank`…) in every session that bound them.
    public func press(_ ids: [String]) throws {
        try ids.joined(separator: "\n").write(to: folder.appendingPathComponent("press"), atomically: true,
                                             encoding: .utf8)
        process.signal(SIGUSR2)
    }

    /// What a client needs in its environment to reach this portal.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(folder.path)/bus"] }

    /// The requests it took, in order: `request` names each (`CreateSession`, `SelectSources`,
    /// `Start`, `OpenPipeWireRemote`, `Session.Close`, `Session.Closed`, `AccessCamera`,
    /// `Camera.OpenPipeWireRemote`, `GlobalShortcuts.CreateSession`, `BindShortcuts`, `Activated`),
    /// `options` (and `shortcuts`) are the client's.
    public func requests() -> [[String: Any]] {
        let text = (try? String(contentsOf: folder.appendingPathComponent("requests.jsonl"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}
