import CPulse
public import PodiumCore

/// What the desktop's sound server says of itself: its name, its defaults and the sources one can
/// record (inputs such as microphones, and the monitor of each output: what it plays).
public struct SoundServerInfo: Sendable, Equatable {
    /// `PulseAudio (on PipeWire 0.3.65)`.
    public var serverName: String
    /// The default output's name; its monitor is what `--audio desktop` records.
    public var defaultSink: String
    /// The default input's name (`--audio mic`).
    public var defaultSource: String
    public var sources: [Source]

    /// One source on the server.
    public struct Source: Sendable, Equatable, Codable {
        /// What `--audio NAME` takes: `alsa_input.usb-…`, `auto_null.monitor`.
        public var name: String
        /// What a person reads: `Monitor of Dummy Output`.
        public var description: String
        /// The output it monitors, for a monitor; `nil` for an input.
        public var monitorOf: String?
    }

    /// The monitor of the default output, which `--audio desktop` records.
    public var desktopSource: Source? {
        sources.first { $0.monitorOf == defaultSink }
    }

    /// The source `request` names on this server.
    /// - Throws: 69 naming the request, with the sources there are, when it names none.
    public func source(for request: SoundRequest) throws(PodiumError) -> Source {
        let found: Source? = switch request {
        case .desktop: desktopSource
        case .microphone: sources.first { $0.name == defaultSource }
        case .named(let name): sources.first { $0.name == name }
        case .application: nil
        }
        guard let found else {
            let there = sources.map(\.name).joined(separator: ", ")
            let missing = switch request {
            case .desktop: "no monitor of the default output '\(defaultSink)'"
            case .microphone: "no default input"
            case .named(let name): "no source named '\(name)'"
            case .application(let name):
                "no sound of one application ('\(name)') through PulseAudio: it is recorded through PipeWire"
            }
            throw .unavailable("\(missing) on the sound server (there: \(there.isEmpty ? "none" : there))",
                               about: .sound("\(request)"))
        }
        return found
    }

    /// Asks the sound server (the one `PULSE_SERVER` names, or the user's own), on the calling thread.
    ///
    /// The corresponding C functions are `pa_context_get_server_info` and `pa_context_get_source_info_list`.
    /// - Parameter server: another server's address (`unix:/path/native`, as `PULSE_SERVER` takes).
    /// - Throws: 69 when no server answers.
    public static func read(for request: SoundRequest? = nil, server: String? = nil)
        throws(PodiumError) -> SoundServerInfo {
        let subject = request.map { PodiumError.Subject.sound("\($0)") }
        guard let loop = pa_mainloop_new() else { throw .software("out of memory asking the sound server") }
        defer { pa_mainloop_free(loop) }
        guard let context = pa_context_new(pa_mainloop_get_api(loop), "Podium") else {
            throw .software("out of memory asking the sound server")
        }
        defer { pa_context_unref(context) }
        guard pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw .unavailable("no sound server (PipeWire or PulseAudio) answers: " + reason(context), about: subject)
        }
        defer { pa_context_disconnect(context) }
        while true {
            let state = pa_context_get_state(context)
            if state == PA_CONTEXT_READY { break }
            guard PA_CONTEXT_IS_GOOD(state) != 0 else {
                throw .unavailable("no sound server (PipeWire or PulseAudio) answers: " + reason(context),
                                   about: subject)
            }
            guard pa_mainloop_iterate(loop, 1, nil) >= 0 else {
                throw .unavailable("the sound server went away", about: subject)
            }
        }
        let answers = Answers()
        let user = Unmanaged.passUnretained(answers).toOpaque()
        try wait(for: pa_context_get_server_info(context, { _, info, user in
            guard let info, let user else { return }
            let answers = Unmanaged<Answers>.fromOpaque(user).takeUnretainedValue()
            answers.info.serverName = SoundServerInfo.string(info.pointee.server_name) + " "
                + SoundServerInfo.string(info.pointee.server_version)
            answers.info.defaultSink = SoundServerInfo.string(info.pointee.default_sink_name)
            answers.info.defaultSource = SoundServerInfo.string(info.pointee.default_source_name)
        }, user), in: loop, about: subject)
        try wait(for: pa_context_get_source_info_list(context, { _, info, last, user in
            guard last == 0, let info, let user else { return }
            let answers = Unmanaged<Answers>.fromOpaque(user).takeUnretainedValue()
            // PA_INVALID_INDEX: not a monitor.
            let monitor = info.pointee.monitor_of_sink == UInt32.max
                ? nil : SoundServerInfo.string(info.pointee.monitor_of_sink_name)
            answers.info.sources.append(Source(name: SoundServerInfo.string(info.pointee.name),
                                               description: SoundServerInfo.string(info.pointee.description),
                                               monitorOf: monitor))
        }, user), in: loop, about: subject)
        return answers.info
    }

    /// What the callbacks fill in, on the calling thread.
    private final class Answers {
        var info = SoundServerInfo(serverName: "", defaultSink: "", defaultSource: "", sources: [])
    }

    /// Runs the loop until `operation` is done.
    private static func wait(for operation: OpaquePointer?, in loop: OpaquePointer, about subject: PodiumError.Subject?)
        throws(PodiumError) {
        guard let operation else { throw .unavailable("the sound server did not answer", about: subject) }
        defer { pa_operation_unref(operation) }
        while pa_operation_get_state(operation) == PA_OPERATION_RUNNING {
            guard pa_mainloop_iterate(loop, 1, nil) >= 0 else {
                throw .unavailable("the sound server went away", about: subject)
            }
        }
    }

    private static func reason(_ context: OpaquePointer) -> String {
        String(cString: pa_strerror(pa_context_errno(context)))
    }

    fileprivate static func string(_ text: UnsafePointer<CChar>?) -> String {
        text.map { String(cString: $0) } ?? ""
    }
}
