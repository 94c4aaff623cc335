public import Foundation

/// A WHIP endpoint for the tests (`Scripts/whip-endpoint`: aiortc, which decodes what arrives, or
/// a Chromium page, or Janus), and what it logged as JSON lines.
public enum WHIPEndpoint {
    public static let script = Tools.repository.appendingPathComponent("Scripts/whip-endpoint").path

    /// An endpoint on a free loopback port, wanting `token`, ready, and its log.
    public static func start(token: String, port: Int = Tools.freePort(), log: URL? = nil) throws
        -> (endpoint: RunningCommand, port: Int, log: URL) {
        let log = try log ?? Tools.temporaryFolder().appendingPathComponent("whip.jsonl")
        let endpoint = try Tools.start(script, ["--port", "\(port)", "--token", token, "--log", log.path])
        try endpoint.waitForStderr(containing: "whip-endpoint: ready", timeout: 30)
        return (endpoint, port, log)
    }

    /// An endpoint inside `namespace` (aiortc, or `receiver`), ready: its address for `room`, its
    /// HTTP port and its log.
    public static func start(in namespace: NetworkNamespace, room: String, receiver: String = "aiortc") throws
        -> (endpoint: RunningCommand, url: String, port: Int, log: URL) {
        let log = try Tools.temporaryFolder().appendingPathComponent("\(receiver).jsonl")
        let port = Tools.freePort()
        let endpoint = try namespace.start(script, ["--host", namespace.address, "--port", "\(port)",
                                                    "--receiver", receiver, "--log", log.path])
        try endpoint.waitForStderr(containing: "whip-endpoint: ready", timeout: 30)
        return (endpoint, "whip+http://\(namespace.address):\(port)/whip/\(room)", port, log)
    }

    /// The events the endpoint logged.
    public static func events(_ log: URL) -> [[String: Any]] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The endpoint's last count of each session's decoded frames ("frames" events), by resource.
    public static func lastCounts(_ log: URL) -> [String: [String: Any]] {
        var counts: [String: [String: Any]] = [:]
        for event in events(log) where event["event"] as? String == "frames" {
            if let resource = event["resource"] as? String { counts[resource] = event }
        }
        return counts
    }

    /// The pictures a run said it sent on each connection (`sent N pictures`).
    public static func picturesSent(_ stderr: String) -> [Int] {
        stderr.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: ": sent ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
    }
}

/// What a WHIP run publishes: a display showing video (every pixel changes every frame) and a
/// sound server playing a tone.
public struct WHIPStage {
    public let display: XvfbServer
    public let scene: RunningCommand
    public let sound: SoundServer

    public init() throws {
        display = try XvfbServer(width: 640, height: 360)
        scene = try Tools.scene("video", on: display.display, fps: 30)
        sound = try SoundServer(tone: 440)
    }

    public func stop() {
        _ = try? scene.interrupt(timeout: 5)
    }
}
