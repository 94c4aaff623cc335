public import Foundation
import Synchronization

/// A TV on the test's own network, in a network namespace (UPnP stacks refuse loopback: the
/// namespace's veth end is its network), showing its pictures in a window on a display of the
/// test's, its sound into a fakesink: `gmediarender` (libupnp, GStreamer's playbin behind it), or
/// rygel's playbin renderer (GUPnP; on a private D-Bus session, as rygel wants one).
public final class MediaRenderer: Sendable {
    public enum Kind: String, Sendable, CustomStringConvertible {
        case gmediarender, rygel
        public var description: String { rawValue }
    }

    public let kind: Kind
    public let name: String
    public let namespace: NetworkNamespace
    /// The display its pictures are shown on.
    public let display: String
    private let uuid: String
    private let folder: URL
    private var logFile: URL { folder.appendingPathComponent("renderer.log") }
    private let process: Mutex<RunningCommand?>
    /// More of its command line.
    private let arguments: [String]

    /// Starts it and waits until it answers searches.
    /// - Parameter arguments: more of its command line (gmediarender's `--mime-filter audio`).
    public init(_ kind: Kind = .gmediarender, name: String, display: String, namespace: NetworkNamespace,
                arguments: [String] = []) throws {
        self.kind = kind
        self.arguments = arguments
        self.name = name
        self.display = display
        self.namespace = namespace
        uuid = UUID().uuidString.lowercased()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("podium-tv-\(uuid)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        process = Mutex(nil)
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Starts it (again, with the same unique name, as a TV switched back on) and waits until it
    /// answers searches.
    public func start() throws {
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let running: RunningCommand
        switch kind {
        case .gmediarender:
            running = try namespace.start("/usr/bin/env", [
                "DISPLAY=\(display)", "gmediarender", "-I", namespace.insideLink, "-f", name, "-u", uuid,
                "--gstout-videosink", "ximagesink", "--gstout-audiosink", "fakesink", "--logfile", logFile.path,
            ] + arguments)
            process.withLock { $0 = running }
            try waitForLog("Ready for rendering", timeout: 90)
        case .rygel:
            // Its own configuration, as a user's (a file given with -c, or -i, did not set the title).
            let configuration = folder.appendingPathComponent("config")
            try FileManager.default.createDirectory(at: configuration, withIntermediateDirectories: true)
            try Self.rygelConfiguration.replacingOccurrences(of: "@TITLE@", with: name)
                .write(to: configuration.appendingPathComponent("rygel.conf"), atomically: true, encoding: .utf8)
            running = try namespace.start("/bin/sh", ["-c", """
                exec env DISPLAY=\(display) HOME=\(folder.path) XDG_CACHE_HOME=\(folder.path)/cache \
                XDG_CONFIG_HOME=\(configuration.path) XDG_DATA_HOME=\(folder.path)/data \
                dbus-run-session -- rygel -n \(namespace.insideLink) >\(logFile.path) 2>&1
                """])
            process.withLock { $0 = running }
            try waitForLog("New plugin “Playbin” available", timeout: 30)
            // Its description is served a moment after the plugin is announced.
            Thread.sleep(forTimeInterval: 1)
        }
    }

    /// Kills it, as a TV switched off at the wall.
    public func stop() {
        process.withLock { running in
            // rygel runs under dbus-run-session, which does not pass a kill on: everything in the
            // namespace goes (the TV is all there is in it).
            if kind == .rygel { namespace.killAll() }
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

    /// rygel as a renderer alone: its playbin, no media server, no transcoding.
    private static let rygelConfiguration = """
        [general]
        ipv6=false
        port=0
        enable-transcoding=false
        media-engine=librygel-media-engine-gst.so
        log-level=*:4
        allow-upload=false
        allow-deletion=false
        acl-fallback-policy=true

        [Playbin]
        enabled=true
        title=@TITLE@

        [MediaExport]
        enabled=false
        [Tracker]
        enabled=false
        [Tracker3]
        enabled=false
        [LMS]
        enabled=false
        [GstLaunch]
        enabled=false
        [MPRIS]
        enabled=false
        [External]
        enabled=false
        [Ruih]
        enabled=false

        """
}
