import Foundation
import Logging
@testable import PodiumCore
import PodiumCoreTesting
import Synchronization
import Testing

/// The remote's token reaches what its page offers: its keys and the status. It names no file,
/// ends no run, and is told of a recording without its file's name.
@Suite struct RemoteRoleTests {
    /// Recordings that only remember what they were asked.
    final class Recordings: RecordingControl {
        let asked = Mutex<[String]>([])
        let path = Mutex<String?>(nil)
        func start(_ path: String) throws(PodiumError) {
            asked.withLock { $0.append("start \(path)") }
            self.path.withLock { $0 = path }
        }
        func stop() throws(PodiumError) -> String {
            asked.withLock { $0.append("stop") }
            return path.withLock { path in
                defer { path = nil }
                return path ?? ""
            }
        }
        func setPaused(_ paused: Bool) throws(PodiumError) -> (path: String, changed: Bool) {
            asked.withLock { $0.append(paused ? "pause" : "resume") }
            return (path.withLock { $0 } ?? "", true)
        }
        var recording: RecordingStatus? {
            path.withLock { $0 }.map { RecordingStatus(path: $0, isPaused: false, seconds: 0) }
        }
        func finish() async {}
    }

    static let status = ControlStatus(pid: 1, fps: 30, fpsRange: [1, 60], auto: false, limitedBy: nil, rate: nil,
                                      picture: "live", layout: nil, sample: nil)

    func reply(_ line: String, by origin: ChangeOrigin, control: RunControl) -> [String: Any] {
        let answer = control.answer(line, by: origin) { Self.status }
        return (try? JSONSerialization.jsonObject(with: Data(answer.utf8))) as? [String: Any] ?? [:]
    }

    @Test func theRemoteSendsItsKeysAndAsksTheStatusOnly() {
        let recordings = Recordings()
        let quits = Atomic(0)
        let control = RunControl(tuning: LiveTuning(frameRate: FrameRate(30), plannedRate: nil), layout: nil,
                                 recordings: recordings, presenter: PresenterTools(), hub: StreamHub(),
                                 clock: FakeClock(), logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
                                 quit: { quits.add(1, ordering: .relaxed) })
        let refused = [
            #"{"command":"record","record":"start","file":"/tmp/chosen-by-the-phone.mkv"}"#,
            #"{"command":"key","value":"q"}"#, #"{"command":"key","value":"Escape"}"#,
            #"{"command":"set","values":{"fps":"60"}}"#, #"{"command":"pause"}"#, #"{"command":"key","value":"d"}"#,
        ]
        for line in refused {
            let answer = reply(line, by: .remote, control: control)
            #expect(answer["ok"] as? Bool == false, "\(line): \(answer)")
            #expect((answer["error"] as? String)?.contains("the remote sends its page's keys") == true, "\(answer)")
        }
        #expect(recordings.asked.withLock { $0 }.isEmpty && quits.load(ordering: .relaxed) == 0)
        #expect(control.tuning.frameRate == FrameRate(30))

        #expect(reply(#"{"command":"status"}"#, by: .remote, control: control)["ok"] as? Bool == true)
        #expect(reply(#"{"command":"key","value":"+"}"#, by: .remote, control: control)["ok"] as? Bool == true)
        // A recording by its own name: the remote is told it is on, not where.
        let started = reply(#"{"command":"key","value":"r"}"#, by: .remote, control: control)
        #expect(started["changes"] as? [String] == ["recording off → on, by remote"], "\(started)")
        #expect(recordings.recording?.path.hasSuffix(".mkv") == true)
        let stopped = reply(#"{"command":"key","value":"r"}"#, by: .remote, control: control)
        #expect(stopped["changes"] as? [String] == ["recording on → off, by remote"], "\(stopped)")
        // The control socket, the presenter's own, still may.
        let chosen = reply(#"{"command":"record","record":"start","file":"/tmp/x.mkv"}"#, by: .control,
                           control: control)
        #expect(chosen["changes"] as? [String] == ["recording off → /tmp/x.mkv, by control"], "\(chosen)")
    }

    /// A replay that only remembers what it was asked to save.
    final class Replay: ReplayControl {
        let asked = Mutex<[(length: Duration?, path: String)]>([])
        func save(last length: Duration?, to path: String) throws(PodiumError) -> Double {
            asked.withLock { $0.append((length, path)) }
            return length?.seconds ?? 120
        }
        var replay: ReplayStatus { ReplayStatus(span: 120, seconds: 120, memoryBytes: 0, spilledBytes: 0, saves: 0) }
    }

    @Test func theRemoteSavesTheReplayByItsOwnNameAndIsNotToldIt() {
        let replay = Replay()
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let control = RunControl(tuning: LiveTuning(frameRate: FrameRate(30), plannedRate: nil), layout: nil,
                                 recordings: nil, replay: replay, presenter: PresenterTools(), hub: StreamHub(),
                                 clock: FakeClock(), logger: logger, quit: {})
        let chosen = reply(#"{"command":"save","file":"/tmp/chosen-by-the-phone.mkv"}"#, by: .remote, control: control)
        #expect(chosen["ok"] as? Bool == false && replay.asked.withLock { $0 }.isEmpty, "\(chosen)")
        let saved = reply(#"{"command":"key","value":"s"}"#, by: .remote, control: control)
        #expect(saved["changes"] as? [String] == ["replay last 2:00 → saved, by remote"], "\(saved)")
        let named = replay.asked.withLock { $0.last?.path } ?? ""
        #expect(named.hasPrefix(FileManager.default.currentDirectoryPath + "/podium-replay-")
                && named.hasSuffix(".mkv"))

        let part = reply(#"{"command":"save","value":"30s","file":"/tmp/q.mkv"}"#, by: .control, control: control)
        #expect(part["changes"] as? [String] == ["replay last 0:30 → /tmp/q.mkv, by control"], "\(part)")
        #expect(replay.asked.withLock { $0.last?.length } == .seconds(30))
        let bad = reply(#"{"command":"save","value":"soon"}"#, by: .control, control: control)
        #expect((bad["error"] as? String)?.contains("save 'soon': expected a duration") == true, "\(bad)")

        let none = RunControl(tuning: LiveTuning(frameRate: FrameRate(30), plannedRate: nil), layout: nil,
                              recordings: nil, presenter: PresenterTools(), hub: StreamHub(), clock: FakeClock(),
                              logger: logger, quit: {})
        let refused = reply(#"{"command":"save"}"#, by: .control, control: none)
        #expect((refused["error"] as? String)?.contains("save: this run keeps no replay") == true, "\(refused)")
    }
}

/// `podium control`'s verbs for live actions come from the table: each action with values is a
/// verb, set to one of them or done as its key does it, and nothing else is taken.
@Suite struct ValuedVerbTests {
    func reply(_ line: String, control: RunControl) -> (ok: Bool, said: String) {
        let answer = control.answer(line, by: .control) { RemoteRoleTests.status }
        let fields = (try? JSONSerialization.jsonObject(with: Data(answer.utf8))) as? [String: Any] ?? [:]
        let said = (fields["error"] as? String) ?? ((fields["changes"] as? [String]) ?? []).joined(separator: "; ")
        return (fields["ok"] as? Bool ?? false, said)
    }

    func control() -> RunControl {
        RunControl(tuning: LiveTuning(frameRate: FrameRate(30), plannedRate: nil), layout: nil, recordings: nil,
                   presenter: PresenterTools(), hub: StreamHub(), clock: FakeClock(),
                   logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, quit: {})
    }

    @Test func eachActionWithValuesIsAVerb() {
        let verbs = ControlRequest.Command.all.map(\.rawValue)
        for action in LiveAction.valued {
            #expect(verbs.contains(action.name) && ControlRequest.Command(rawValue: action.name).action == action)
        }
        #expect(LiveAction.valued.map(\.name) == ["blank", "highlight", "zoom", "pen", "layout"])
        #expect(ControlRequest.Command(rawValue: "pause").action == nil, "a verb of the socket's own")
    }

    @Test func aValueSetsItAndNoneDoesWhatTheKeyDoes() {
        let run = control()
        #expect(reply(#"{"command":"blank","value":"white"}"#, control: run)
                == (true, "screen shown → white, by control"))
        #expect(reply(#"{"command":"blank"}"#, control: run) == (true, "screen white → black, by control"))
        #expect(reply(#"{"command":"blank"}"#, control: run) == (true, "screen black → shown, by control"))
        #expect(reply(#"{"command":"zoom","value":"4"}"#, control: run).ok)
        #expect(run.presenter.zoom == 4)
    }

    @Test func aValueNotItsOwnOrAVerbNotKnownIsRefused() {
        let run = control()
        #expect(reply(#"{"command":"zoom","value":"3"}"#, control: run) == (false, "zoom '3': expected one of 1, 2, 4"))
        let unknown = reply(#"{"command":"spin"}"#, control: run)
        #expect(!unknown.ok && unknown.said.contains("blank, highlight, zoom, pen, layout"), "\(unknown.said)")
        #expect(run.presenter.zoom == 1)
    }
}
