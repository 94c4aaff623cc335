import Foundation

/// One request on the control socket, as a JSON line: `{"command":"set","values":{"fps":"15"}}`.
/// Values travel as the user typed them (`podium control set fps=15 bitrate=4M`), so the run reads
/// them with the parsers the flags use, and says what is wrong in the same words.
public struct ControlRequest: Codable, Sendable, Equatable {
    /// What a request asks for: a verb of the socket's own, or a live action that takes a value
    /// (`blank white`, `zoom 2`: `LiveAction.values`), whose name is its verb.
    public struct Command: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let status = Command(rawValue: "status"), pause = Command(rawValue: "pause")
        public static let resume = Command(rawValue: "resume"), keyframe = Command(rawValue: "keyframe")
        public static let set = Command(rawValue: "set"), record = Command(rawValue: "record")
        /// `save [LENGTH] [FILE]`: the replay written to a file.
        public static let save = Command(rawValue: "save")
        /// `key NAME`: what the mirror window's key does (`b`, `space`, `+`), as global keys bound
        /// by the desktop (sway's `bindsym`) send it.
        public static let key = Command(rawValue: "key")

        /// The socket's own verbs, then the actions that take a value.
        public static let all = [status, pause, resume, keyframe, set, record, save]
            + LiveAction.valued.map { Command(rawValue: $0.name) } + [key]

        /// The live action this verb sets, with or without a value (`blank`, `zoom`).
        public var action: LiveAction? { LiveAction.valued.first { $0.name == rawValue } }
        public var isKnown: Bool { Self.all.contains(self) }
        public var description: String { rawValue }
    }

    public var command: Command
    /// `set`: each setting and its value (`fps`, `bitrate`, `quality`).
    public var values: [String: String]?
    /// `record`: `start` with a file, `pause`, `resume` or `stop`.
    public var record: String?
    /// `record start`'s file; `save`'s, if it names one.
    public var file: String?
    /// A live action's value (`black`, `on`, `2`, `swap`); `nil` for what its key does.
    /// `save`: how much (`30s`); `nil` for all that is kept.
    public var value: String?

    public init(command: Command, values: [String: String]? = nil, record: String? = nil, file: String? = nil,
                value: String? = nil) {
        self.command = command
        self.values = values
        self.record = record
        self.file = file
        self.value = value
    }

    /// The settings `set` takes.
    public static let settings = ["fps", "bitrate", "quality"]

    /// The remote's page may ask for the status and press its own keys, and nothing else: no file of
    /// its choosing, no end to the run, no setting its buttons do not offer.
    func checkRemote() throws(PodiumError) {
        switch command {
        case .status: return
        case .key where value.flatMap(KeyCommand.init(key:))?.isOnTheRemote == true: return
        default: throw .usage("the remote sends its page's keys and asks for the status, nothing else")
        }
    }
}

/// The answer to one request, as a JSON line. `podium` marks it as Podium's (a socket that does
/// not answer with it is someone else's).
public struct ControlReply: Codable, Sendable {
    /// The protocol's version.
    public var podium = 1
    public var ok: Bool
    /// What was wrong with the request, when it was refused: nothing was changed.
    public var error: String?
    /// The changes made, each as the run said it (`fps 30 → 15, by control`).
    public var changes: [String]?
    public var status: ControlStatus?

    public init(ok: Bool, error: String? = nil, changes: [String]? = nil, status: ControlStatus? = nil) {
        self.ok = ok
        self.error = error
        self.changes = changes
        self.status = status
    }
}

/// What `status` answers: what can be changed, as it is now, and the last second's statistics.
public struct ControlStatus: Codable, Sendable {
    public var pid: Int32
    public var fps: Int
    /// The rates the run may take.
    public var fpsRange: [Int]
    /// The budget chooses the rate (`--fps auto`, `--max-cpu`), and what holds it down now.
    public var auto: Bool
    public var limitedBy: String?
    /// `6Mbit/s` or `crf 23`: the first encoder's rate now; `nil` when nothing is encoded.
    public var rate: String?
    /// `live` or `frozen`.
    public var picture: String
    public var layout: String?
    /// The last second's statistics, once there is one.
    public var sample: StatsSample?

    public init(pid: Int32, fps: Int, fpsRange: [Int], auto: Bool, limitedBy: String?, rate: String?, picture: String,
                layout: String?, sample: StatsSample?) {
        self.pid = pid
        self.fps = fps
        self.fpsRange = fpsRange
        self.auto = auto
        self.limitedBy = limitedBy
        self.rate = rate
        self.picture = picture
        self.layout = layout
        self.sample = sample
    }
}

extension ControlStatus {
    /// The status without the outputs' names and addresses (files, servers): what the remote is shown.
    var withoutFiles: ControlStatus {
        var status = self
        guard var sample = sample else { return status }
        sample.sinks = []
        sample.recording?.path = ""
        for index in sample.renditions.indices { sample.renditions[index].outputs = [] }
        status.sample = sample
        return status
    }
}

extension RunChange {
    /// The change as the remote is told it: a recording is on, paused or off, a replay saved, its
    /// file unnamed.
    var withoutFiles: RunChange {
        var change = self
        if setting == "replay" { change.to = "saved" }
        guard setting == "recording" else { return change }
        let unnamed = { (state: String) in state == "off" || state == "paused" ? state : "on" }
        (change.from, change.to) = (from.map(unnamed), unnamed(to))
        return change
    }
}

extension RunControl {
    /// Answers one request line of the control socket: does what it asks, or nothing at all when
    /// any part of it cannot be done, and says which.
    /// - Parameter origin: who asked, as each change is said (`by control`, `by remote`).
    /// - Parameter status: the parts of the status only the statistics know (the last sample,
    ///   what holds the rate down), for `status` and after each change.
    public func answer(_ line: String, by origin: ChangeOrigin = .control, status: () -> ControlStatus) -> String {
        let reply: ControlReply
        do throws(PodiumError) {
            guard let request = try? JSONDecoder().decode(ControlRequest.self, from: Data(line.utf8)) else {
                let commands = ControlRequest.Command.all.map(\.rawValue).joined(separator: ", ")
                throw .usage("not a request Podium knows: send one JSON object a line, its command one of \(commands)")
            }
            if origin == .remote { try request.checkRemote() }
            let changes = try perform(request, by: origin)
            reply = origin == .remote
                ? ControlReply(ok: true, changes: changes.map(\.withoutFiles.line), status: status().withoutFiles)
                : ControlReply(ok: true, changes: changes.map(\.line), status: status())
        } catch {
            // Flag-free with its subject: a client's own words (`record start 'x'`), not the command line's.
            reply = ControlReply(ok: false, error: error.description)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(reply)) ?? Data(#"{"ok":false,"podium":1}"#.utf8)
        return String(decoding: data, as: UTF8.self)
    }

    private func perform(_ request: ControlRequest, by origin: ChangeOrigin) throws(PodiumError) -> [RunChange] {
        switch request.command {
        case .status: return []
        case .pause: return setPaused(true, by: origin).map { [$0] } ?? []
        case .resume: return setPaused(false, by: origin).map { [$0] } ?? []
        case .keyframe:
            guard let change = requestKeyframe(by: origin) else { throw .usage("keyframe: this run encodes nothing") }
            return [change]
        case .set: return try set(request.values ?? [:], by: origin)
        case .record: return [try record(request, by: origin)]
        case .save:
            var length: Duration?
            if let value = request.value {
                do {
                    length = try Duration(parsing: value)
                } catch {
                    throw .usage("save '\(value)': \(error.reason)")
                }
            }
            return [try saveReplay(last: length, to: request.file, by: origin)]
        case .key:
            guard let name = request.value, let command = KeyCommand(key: name),
                  LiveAction.runs.contains(where: { $0.command == command }) else {
                throw .usage("key '\(request.value ?? "")': not one of the presenter's keys ("
                             + LiveAction.runs.map(\.key).joined(separator: ", ") + ")")
            }
            return perform(command, from: origin).map { [$0] } ?? []
        default:
            guard let action = request.command.action else {
                throw .usage("'\(request.command)' is not a command; the commands are "
                             + ControlRequest.Command.all.map(\.rawValue).joined(separator: ", "))
            }
            return try present(action, value: request.value, by: origin)
        }
    }

    /// A live action set to a value (`blank white`, `zoom 2`), or without one done as its key does it.
    private func present(_ action: LiveAction, value: String?, by origin: ChangeOrigin) throws(PodiumError)
        -> [RunChange] {
        if let value, !action.values.contains(value) {
            throw .usage("\(action.name) '\(value)': expected one of \(action.values.joined(separator: ", "))")
        }
        switch action.command {
        case .blank:
            let colour: Blank? = switch value {
            case "white": .white
            case "off": nil
            case "black": .black
            default: blankColour == .black ? nil : .black
            }
            return setBlank(colour, by: origin).map { [$0] } ?? []
        case .pen:
            if let reason = pen.unavailable { throw .usage("pen: \(reason)") }
            return setPen(value.map { $0 == "on" }, by: origin).map { [$0] } ?? []
        case .highlight, .zoom:
            if let reason = presenter.unavailable { throw .usage("\(action.name): \(reason)") }
            if action.command == .zoom {
                let factor = value.flatMap { Int($0) } ?? PresenterTools.zoom(after: presenter.zoom)
                return setZoom(factor, by: origin).map { [$0] } ?? []
            }
            guard let value, (value == "on") == presenter.isHighlighting else { return [toggleHighlight(by: origin)] }
            return []
        case .cycleLayout:
            guard layout != nil else { throw .usage("layout: this run has one source") }
            let change = value == "swap" ? changeLayout(by: origin) { $0.swapped.toggle() }
                : changeLayout(by: origin) { $0.cycle() }
            return change.map { [$0] } ?? []
        default:
            return perform(action.command, from: origin).map { [$0] } ?? []
        }
    }

    /// `record start FILE`, `record stop`.
    private func record(_ request: ControlRequest, by origin: ChangeOrigin) throws(PodiumError) -> RunChange {
        guard let recordings else { throw .usage("record: this run encodes nothing to record") }
        switch (request.record, request.file) {
        case ("start", .some(let file)):
            try recordings.start(file)
            return report(RunChange(setting: "recording", from: "off", to: file, by: origin))
        case ("stop", nil):
            let file = try recordings.stop()
            return report(RunChange(setting: "recording", from: file, to: "off", by: origin))
        case ("pause", nil), ("resume", nil):
            let paused = request.record == "pause"
            guard let change = try pauseRecording(paused, by: origin) else {
                throw .usage("record \(request.record ?? ""): the recording is \(paused ? "paused" : "going") already")
            }
            return change
        default:
            throw .usage("record: start FILE, pause, resume or stop")
        }
    }

    /// Reads every value first, and changes nothing unless all of them can be taken.
    private func set(_ values: [String: String], by origin: ChangeOrigin) throws(PodiumError) -> [RunChange] {
        guard !values.isEmpty else { throw .usage("set: name a setting, such as fps=15") }
        var rate: Int?, bitrate: Bitrate?, quality: Double?
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            guard ControlRequest.settings.contains(key) else {
                throw .usage("set: unknown setting '\(key)'; the settings are "
                             + ControlRequest.settings.joined(separator: ", "))
            }
            do throws(OptionParseError) {
                switch key {
                case "fps": rate = try FrameRate(parsing: value).framesPerSecond
                case "bitrate": bitrate = try Bitrate(parsing: value)
                default:
                    guard let number = Double(value), number.isFinite else {
                        throw OptionParseError("expected a constant quality (crf) from 0 to 51, lower is better")
                    }
                    quality = number
                }
            } catch {
                throw .usage("\(key)=\(value): \(error.reason)")
            }
        }
        // Every value is checked before any is changed.
        if let rate { try check(frameRate: rate) }
        if let bitrate { _ = try bitrateFactor(for: bitrate) }
        if let quality { _ = try qualityShift(for: quality) }
        var changes: [RunChange] = []
        if let rate, let change = try setFrameRate(rate, by: origin) { changes.append(change) }
        if let bitrate, let change = try setBitrate(bitrate, by: origin) { changes.append(change) }
        if let quality, let change = try setQuality(quality, by: origin) { changes.append(change) }
        return changes
    }
}
