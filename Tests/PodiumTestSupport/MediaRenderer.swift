public import Foundation
import Synchronization

/// A TV on the test's own network: `gmediarender` (a UPnP AV media renderer, GStreamer's playbin
/// behind it) in a network namespace, its pictures shown in a window on a display of the test's,
/// its sound into a fakesink. libupnp refuses loopback: the namespace's veth end is its network.
public final class MediaRenderer: Sendable {
    public let name: String
    public let namespace: NetworkNamespace
    /// The display its pictures are shown on.
    public let display: String
    private let uuid: String
    private let logFile: URL
    private let process: Mutex<RunningCommand?>

    /// Starts it and waits until it answers searches.
    public init(name: String, display: String, namespace: NetworkNamespace) throws {
        self.name = name
        self.display = display
        self.namespace = namespace
        uuid = UUID().uuidString.lowercased()
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent("podium-tv-\(uuid).log")
        process = Mutex(nil)
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: logFile)
    }

    /// Starts it (again, with the same unique name, as a TV switched back on) and waits until it
    /// answers searches.
    public func start() throws {
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let running = try namespace.start("/usr/bin/env", [
            "DISPLAY=\(display)", "gmediarender", "-I", namespace.insideLink, "-f", name, "-u", uuid,
            "--gstout-videosink", "ximagesink", "--gstout-audiosink", "fakesink", "--logfile", logFile.path,
        ])
        process.withLock { $0 = running }
        try waitForLog("Ready for rendering", timeout: 90)
    }

    /// Kills it, as a TV switched off at the wall.
    public func stop() {
        process.withLock { running in
            running?.signal(SIGKILL)
            _ = try? running?.wait(timeout: 5)
            running = nil
        }
    }

    /// What it logged so far.
    public var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Waits until its log holds `text` `times` times.
    public func waitForLog(_ text: String, times: Int = 1, timeout: TimeInterval = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while log.components(separatedBy: text).count - 1 < times {
            guard Date() < deadline else { throw TestFailure("\(name) never logged '\(text)': \(log.suffix(2_000))") }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }
}
