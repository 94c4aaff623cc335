public import PodiumCore

/// The projector window, `--to window` or `window:MONITOR`: the captured picture scaled to a
/// borderless fullscreen window (the window stage's), no encoder involved.
public struct ProjectorWindow: PictureOutputPlan, Hashable {
    public var monitor: MonitorSelector?

    public init(monitor: MonitorSelector? = nil) {
        self.monitor = monitor
    }

    public var description: String { "window" + (monitor.map { ":\($0)" } ?? "") }
    public var needs: OutputNeeds { OutputNeeds() }
    public var isLocal: Bool { true }

    /// It shows the pictures themselves, whatever the encoders make.
    public func validate(codec: VideoCodec) throws(PodiumError) {}
    /// The window plays no sound: the room hears the laptop's own.
    public func validate(sound codec: AudioCodec) throws(PodiumError) {}

    /// Reads `window` and `window:MONITOR`.
    public struct Resolver: OutputResolver {
        public init() {}

        public var forms: [String] { ["window[:MONITOR]"] }

        public func resolve(_ text: String) throws(OptionParseError) -> (any OutputPlan)? {
            if text == "window" { return ProjectorWindow() }
            if text.hasPrefix("window?") {
                throw OptionParseError("the window takes no options; window:MONITOR picks its monitor")
            }
            guard text.hasPrefix("window:") else { return nil }
            return ProjectorWindow(monitor: try MonitorSelector(parsing: String(text.dropFirst("window:".count))))
        }
    }
}
