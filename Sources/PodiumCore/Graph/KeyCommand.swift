import Foundation
import Logging
import Synchronization

/// What the presenter's keys do: one map for the mirror window and the terminal.
public enum KeyCommand: Sendable, Equatable {
    /// Space: freeze the picture (capture pauses) or go on.
    case pause
    /// `q`, Escape: end the run cleanly, as Ctrl-C does.
    case quit
    /// `+` and `-` (also `=`, the key `+` shares): the next frame rate up or down the ladder.
    case frameRate(Int)
    /// `<` and `>` (also `,` and `.`, their keys): the bit rate, or the quality, a step down or up.
    case encoderRate(Int)
    /// `k`: a keyframe now, from every encoder.
    case keyframe
    /// `b` and `w`: every output black, or white, and the screen again (PowerPoint's keys).
    case blank(Blank)
    /// `h`: the pointer highlight on or off.
    case highlight
    /// `z`: the next zoom around the pointer: 1×, 2×, 4×, then 1× again.
    case zoom
    /// `d`: the pen on (the pointer draws over the screen) or off.
    case pen
    /// `l`: the next layout of two sources.
    case cycleLayout
    /// `x`: swap the primary and the secondary.
    case swapSources
    /// `[` and `]`: move the split of `beside`, or resize the picture `over` the other, by one step.
    case resize(Int)
    /// `f`: fullscreen or not (the mirror window's own).
    case fullscreen
    /// `r`: start a recording of the run to `podium-DATE-TIME.mkv` in its folder, or stop it.
    case record
    /// `p`: pause the recording (the pause is cut out of it), or resume it.
    case pauseRecording
    /// `s`: save the replay (`--replay`) to `podium-replay-DATE-TIME.mkv` in the run's folder.
    case saveReplay
    /// `?`: the keys, said on one line.
    case help
    /// `m`: a mark of this moment, said and kept in `--stats-json` with its time (a good question
    /// to find in the recording later).
    case mark

    /// Whether the remote's page offers it (`LiveAction.button`).
    public var isOnTheRemote: Bool { LiveAction.all.contains { $0.command == self && $0.isOnTheRemote } }

    /// The command of a key, by its name (`space`, `Escape`, `l`), or `nil` for a key without one.
    public init?(key: String) {
        guard let action = LiveAction.action(forKey: key) else { return nil }
        self = action.command
    }

    /// The keys, as `?` says them; those of layouts only when there are two sources.
    /// - Parameters:
    ///   - quality: `<` and `>` step the constant quality (a run without `--bitrate`).
    ///   - presenter: the highlight and the zoom are drawn (on X11 screens).
    ///   - pen: the pen can be had (an X11 screen).
    ///   - replay: the run keeps a replay to save.
    public static func help(layouts: Bool, window: Bool, quality: Bool = false, presenter: Bool = true,
                            pen: Bool = true, replay: Bool = false) -> String {
        let when: [(LiveAction.Shown, Bool)] = [(.always, true), (.presenterTools, presenter), (.pen, pen),
                                                 (.replay, replay), (.layouts, layouts), (.window, window)]
        let shown = Set(when.filter(\.1).map(\.0))
        let keys = LiveAction.all.filter { shown.contains($0.shown) }.compactMap { action in
            quality && action.command == .encoderRate(-1) ? "< > quality" : action.help
        }
        return "keys: " + keys.joined(separator: ", ")
    }
}

extension RunControl {
    /// Does what `command` asks of the run, and says so. The window's own commands (`fullscreen`)
    /// are the window's to do; a layout key without two sources does nothing.
    /// - Parameter origin: where the key was pressed: the terminal, the mirror window, anywhere.
    /// - Returns: the change it made, if any.
    @discardableResult
    public func perform(_ command: KeyCommand, from origin: ChangeOrigin = .key) -> RunChange? {
        let window = origin == .window
        switch command {
        case .pause:
            return setPaused(!paused.load(ordering: .relaxed), by: origin)
        case .quit:
            logger.notice("quit from the \(window ? "window" : origin == .globalKey ? "global key" : "terminal")")
            quit()
        case .frameRate(let steps):
            return stepFrameRate(steps, by: origin)
        case .encoderRate(let steps):
            return stepEncoderRate(steps, by: origin)
        case .keyframe:
            return requestKeyframe(by: origin)
        case .blank(let colour):
            return setBlank(blankColour == colour ? nil : colour, by: origin)
        case .highlight where presenter.unavailable != nil, .zoom where presenter.unavailable != nil:
            logger.notice("the highlight and the zoom cannot be drawn: \(presenter.unavailable ?? "")")
        case .highlight:
            return toggleHighlight(by: origin)
        case .zoom:
            return setZoom(PresenterTools.zoom(after: presenter.zoom), by: origin)
        case .pen:
            return setPen(nil, by: origin)
        case .cycleLayout:
            return changeLayout(by: origin) { $0.cycle() }
        case .swapSources:
            return changeLayout(by: origin) { $0.swapped.toggle() }
        case .resize(let steps):
            return changeLayout(by: origin) { $0.resize(by: steps) }
        case .record:
            return toggleRecording(by: origin)
        case .pauseRecording:
            do throws(PodiumError) {
                return try pauseRecording(recordings?.recording.map { !$0.isPaused }, by: origin)
            } catch {
                logger.warning("\(error.message)")
            }
        case .saveReplay where origin == .remote || origin == .control:
            // Each on a thread of its own, waiting to say what was saved.
            do throws(PodiumError) {
                return try saveReplay(last: nil, to: nil, by: origin)
            } catch {
                logger.warning("\(error.message)")
            }
        case .saveReplay:
            // The window, the terminal and the desktop's keys go on while the file is written.
            Thread.detachNewThread { [self] in
                do throws(PodiumError) {
                    _ = try saveReplay(last: nil, to: nil, by: origin)
                } catch {
                    logger.warning("\(error.message)")
                }
            }
        case .help:
            let quality = if case .quality = tuning.plannedRate { true } else { false }
            let keys = KeyCommand.help(layouts: layout != nil, window: window, quality: quality,
                                       presenter: presenter.unavailable == nil, pen: pen.unavailable == nil,
                                       replay: replay != nil)
            logger.notice("\(keys)")
            if let global = globalKeys.withLock({ $0 }) { logger.notice("global keys: \(global)") }
        case .mark:
            return report(RunChange(setting: "mark", to: "here", by: origin))
        case .fullscreen:
            break
        }
        return nil
    }
}

extension RunControl {
    /// Starts a recording to a new file named by the time in the run's folder, or stops the one
    /// going; what cannot be done is said.
    func toggleRecording(by origin: ChangeOrigin) -> RunChange? {
        guard let recordings else {
            logger.notice("record: this run encodes nothing to record")
            return nil
        }
        do throws(PodiumError) {
            if recordings.recording != nil {
                let file = try recordings.stop()
                return report(RunChange(setting: "recording", from: file, to: "off", by: origin))
            }
            var now = time(nil), moment = tm()
            localtime_r(&now, &moment)
            let file = FileManager.default.currentDirectoryPath + "/" + Self.recordingName(for: moment)
            try recordings.start(file)
            return report(RunChange(setting: "recording", from: "off", to: file, by: origin))
        } catch {
            logger.warning("record: \(error.message)")
            return nil
        }
    }

    /// Pauses the recording, or resumes it (`nil`: nothing is recorded, which is said).
    func pauseRecording(_ paused: Bool?, by origin: ChangeOrigin) throws(PodiumError) -> RunChange? {
        guard let recordings else { throw .usage("record: this run encodes nothing to record") }
        let (path, changed) = try recordings.setPaused(paused ?? true)
        guard changed else { return nil }
        let (from, to) = paused == false ? ("paused", path) : (path, "paused")
        return report(RunChange(setting: "recording", from: from, to: to, by: origin))
    }

    /// Writes the last `length` of the run (all that is kept for `nil`) to `path`, or to a new file
    /// named by the time in the run's folder, and says so once it is written.
    func saveReplay(last length: Duration?, to path: String?, by origin: ChangeOrigin) throws(PodiumError)
        -> RunChange {
        guard let replay else { throw .usage("save: this run keeps no replay (a run asked to keeps its last minutes)") }
        var file = path ?? ""
        if path == nil {
            var now = time(nil), moment = tm()
            localtime_r(&now, &moment)
            file = FileManager.default.currentDirectoryPath + "/" + Self.recordingName(for: moment, kind: "replay-")
            // Two saves in one second: the second's name says so.
            let named = file
            for number in 2...99 where FileStatus(path: file) != nil {
                file = named.dropLast(".mkv".count) + "-\(number).mkv"
            }
        }
        let seconds = try replay.save(last: length, to: file)
        let whole = Int(seconds.rounded())
        let length = "\(whole / 60):" + (whole % 60 < 10 ? "0" : "") + "\(whole % 60)"
        return report(RunChange(setting: "replay", from: "last \(length)", to: file, by: origin))
    }

    /// `podium-2026-11-28-071512.mkv`: the recording named by the (local) time `moment`.
    /// - Parameter kind: what it is, after `podium-` (`replay-`).
    static func recordingName(for moment: tm, kind: String = "") -> String {
        let day = [moment.tm_year + 1900, moment.tm_mon + 1, moment.tm_mday].map { String(format: "%02d", $0) }
        let time = [moment.tm_hour, moment.tm_min, moment.tm_sec].map { String(format: "%02d", $0) }.joined()
        return "podium-" + kind + day.joined(separator: "-") + "-" + time + ".mkv"
    }
}
