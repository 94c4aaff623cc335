import PodiumCore

/// The one place a library's error becomes the line the user reads: its subject named by the
/// flag the user typed, and its remedy by the options that help.
extension PodiumError {
    /// `--to 'x.mkv': already exists; pass --overwrite to replace it`.
    var said: String {
        let line = subject.map { "\(Self.flag($0)): \(message)" } ?? message
        return remedy.map { line + "; " + Self.advice($0) } ?? line
    }

    private static func flag(_ subject: Subject) -> String {
        switch subject {
        case .output(let url): "--to '\(url)'"
        case .outputs: "--to"
        case .statsFile(let path): "--stats-json '\(path)'"
        case .plot(let path): "--plot '\(path)'"
        case .recording, .savedReplay: subject.description
        case .preset(let preset): "--preset '\(preset)'"
        case .encoder(let name): "--encoder '\(name)'"
        case .size(let size): "--size \(size)"
        case .quality(let quality): "--crf '\(quality.plain)'"
        case .videoCodec(let codec): "--codec \(codec)"
        case .sound(let request): "--audio \(request)"
        case .window(.pick): "--window pick"
        case .window(let selector): "--window '\(selector)'"
        case .monitor(let monitor): "--monitor '\(monitor)'"
        case .region(let region): "--region '\(region)'"
        case .ladder: "--ladder"
        case .viewerInput: "--allow-input"
        case .monitorScale(let scale): "--monitor-scale \(scale)"
        case .neighbour(let side, let name): "--\(side.rawValue) '\(name)'"
        }
    }

    private static func advice(_ remedy: Remedy) -> String {
        switch remedy {
        case .overwrite: "pass --overwrite to replace it"
        case .videoCodec(let codec): "pass --codec \(codec)"
        case .audioCodec(let codec): "pass --audio-codec \(codec)"
        case .bitrate: "pass --bitrate"
        case .otherSize: "choose another with --size or --max-size"
        case .portal: "try --source portal"
        case .display: "set DISPLAY or pass --display :N (on Wayland: --source portal, or --source wlr)"
        case .region: "capture a --region of the screen instead"
        case .listEncoders: "see podium encoders"
        case .growRightOrDown: "use --right-of or --below"
        case .waylandDisplay: "run podium extend against the Wayland display (--display wayland-N)"
        }
    }
}
