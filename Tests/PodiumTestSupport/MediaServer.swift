public import Foundation
import Synchronization
import Glibc

/// nginx with libnginx-mod-rtmp, started by `Scripts/media-server` (and so with the configuration
/// doc/outputs.md documents) on loopback ports of its own, in a folder of its own. Stopped when
/// released.
public final class MediaServer: Sendable {
    public let rtmpPort: Int
    public let httpPort: Int
    /// The one stream key it accepts.
    public let key: String
    public let folder: URL
    private let process: Mutex<RunningCommand?>

    /// Where players and publishers connect for `key`.
    public var publishURL: String { "rtmp://127.0.0.1:\(rtmpPort)/live/\(key)" }
    /// The HLS playlist nginx writes for `key` while it is published.
    public var playlistURL: String { "http://127.0.0.1:\(httpPort)/hls/\(key).m3u8" }

    public init() throws {
        rtmpPort = Tools.freePort()
        httpPort = Tools.freePort()
        key = "key\(UInt64.random(in: 1_000_000...9_999_999))"
        folder = try Tools.temporaryFolder()
        process = Mutex(nil)
        try start()
    }

    deinit { stop() }

    /// Starts nginx (again, after `stop`) and waits until it takes connections.
    public func start() throws {
        let script = Tools.repository.appendingPathComponent("Scripts/media-server").path
        let server = try Tools.start(script, ["--rtmp-port", "\(rtmpPort)", "--http-port", "\(httpPort)",
                                              "--key", key, "--dir", folder.path])
        process.withLock { $0 = server }
        try Tools.waitUntilListening(port: rtmpPort, process: server)
        try Tools.waitUntilListening(port: httpPort, process: server)
    }

    /// Stops nginx at once (its fast shutdown): every connection is closed.
    public func stop() {
        guard let server = process.withLock({ current in defer { current = nil }; return current }) else { return }
        _ = try? server.interrupt(timeout: 10)
    }
}

extension Tools {
    /// The repository's root folder.
    public static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// Waits until something accepts TCP connections on loopback at `port`.
    /// Python's HTTP server on a free loopback port, serving `folder` (for Chromium to play an HLS
    /// folder from); returns once it listens.
    public static func serve(_ folder: URL) throws -> (server: RunningCommand, port: Int) {
        let port = freePort()
        let server = try start("/usr/bin/python3", ["-m", "http.server", "\(port)", "--bind", "127.0.0.1",
                                                    "--directory", folder.path])
        try waitUntilListening(port: port, process: server)
        return (server, port)
    }

    public static func waitUntilListening(port: Int, process: RunningCommand? = nil,
                                          timeout: TimeInterval = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !acceptsConnections(port: port) {
            guard Date() < deadline, process?.isRunning ?? true else {
                throw TestFailure("nothing listens on port \(port); \(process?.stderrSoFar ?? "")")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    private static func acceptsConnections(port: Int) -> Bool {
        withSocket(SOCK_STREAM, host: "127.0.0.1", port: port) { connect($0, $1, $2) == 0 }
    }
}

/// TLS in front of a plain TCP server: nginx's stream proxy with a certificate made for
/// 127.0.0.1 by `openssl`, so `rtmps://` reaches `MediaServer`. Stopped when released.
public final class TLSFront: Sendable {
    public let port: Int
    /// The self-made certificate, which is also its own authority.
    public let certificate: String
    private let process: RunningCommand

    public init(forwardingTo target: Int) throws {
        port = Tools.freePort()
        let folder = try Tools.temporaryFolder()
        certificate = folder.appendingPathComponent("cert.pem").path
        let made = try Tools.run("openssl", [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", folder.appendingPathComponent("key.pem").path,
            "-out", certificate,
        ])
        guard made.status == 0 else { throw TestFailure("openssl: \(made.stderr)") }
        let configuration = """
            load_module /usr/lib/nginx/modules/ngx_stream_module.so;
            daemon off;
            pid tls.pid;
            events { worker_connections 64; }
            stream {
                server {
                    listen 127.0.0.1:\(port) ssl;
                    ssl_certificate cert.pem;
                    ssl_certificate_key key.pem;
                    proxy_pass 127.0.0.1:\(target);
                }
            }
            """
        let file = folder.appendingPathComponent("tls.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        process = try Tools.start("nginx", ["-p", folder.path + "/", "-c", file.path, "-e", "stderr"])
        try Tools.waitUntilListening(port: port, process: process)
    }

    deinit { _ = try? process.interrupt(timeout: 10) }
}
