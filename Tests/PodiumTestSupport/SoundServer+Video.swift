import Foundation

/// Video nodes on the sound server's PipeWire, where the desktop's ScreenCast portal would put
/// its streams: the tests' PipeWire sources.
extension SoundServer {
    /// What a PipeWire client of this server needs in its environment (its socket is in the folder).
    public var pipeWireEnvironment: [String: String] { ["XDG_RUNTIME_DIR": folder.path] }

    /// This server's PipeWire socket, by path: for a client that connects to it by itself.
    public var pipeWireSocket: String { folder.appendingPathComponent("pipewire-0").path }

    /// Starts a video node of one colour (`RRGGBB`), 640x360, made by GStreamer's `pipewiresink`,
    /// and returns it with its id once it is there.
    /// - Parameter format: its pixels' layout: `BGRx` as screens have it, `YUY2` as webcams do, or
    ///   `JPEG` for JPEG pictures (as webcams send their larger sizes).
    /// - Parameter moving: a ball moving over the colour instead (each JPEG of its own length).
    public func provideVideo(colour: String, name: String, fps: Int = 30, format: String = "BGRx",
                             moving: Bool = false) throws -> (producer: RunningCommand, node: Int) {
        let pixels = format == "JPEG" ? "I420" : format
        let encoding = format == "JPEG" ? ["jpegenc", "!"] : []
        return try provideVideo(named: name, by: Tools.start("gst-launch-1.0", [
            "-q", "videotestsrc", moving ? "pattern=ball" : "pattern=solid-color",
            "\(moving ? "background" : "foreground")-color=0xff\(colour)", "is-live=true", "!",
            "video/x-raw,format=\(pixels),width=640,height=360,framerate=\(fps)/1", "!",
        ] + encoding + [
            "pipewiresink", "mode=provide",
            "stream-properties=props,media.class=Video/Source,node.name=\(name)",
        ], environment: pipeWireEnvironment))
    }

    /// `producer` with the id of the node `name` it made, once it is there (as `pw-dump` lists it).
    public func provideVideo(named name: String, by producer: RunningCommand)
        throws -> (producer: RunningCommand, node: Int) {
        for _ in 0..<100 {
            let dump = try Tools.start("pw-dump", [], environment: pipeWireEnvironment).wait(timeout: 10)
            let objects = (try? JSONSerialization.jsonObject(with: Data(dump.stdout.utf8))) as? [[String: Any]] ?? []
            let node = objects.first { object in
                let props = (object["info"] as? [String: Any])?["props"] as? [String: Any]
                return object["type"] as? String == "PipeWire:Interface:Node" && props?["node.name"] as? String == name
            }
            if let id = node?["id"] as? Int { return (producer, id) }
            Thread.sleep(forTimeInterval: 0.1)
        }
        _ = try? producer.interrupt(timeout: 5)
        throw TestFailure("the video node \(name) did not appear")
    }
}
