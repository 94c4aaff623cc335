@testable import PodiumCore
import PodiumCoreTesting
import Testing

/// The one table of live actions: every door reads it, so it must be whole and unambiguous.
@Suite struct LiveActionTests {
    /// Each key does one thing, each name is one action, and each key finds its action again.
    @Test func keysAndNamesAreEachOnesOwn() {
        let keys = LiveAction.all.flatMap(\.keys)
        #expect(Set(keys).count == keys.count, "a key of two actions: \(keys)")
        #expect(Set(LiveAction.all.map(\.name)).count == LiveAction.all.count)
        for action in LiveAction.all {
            for key in action.keys { #expect(KeyCommand(key: key) == action.command, "\(key)") }
        }
    }

    /// The default global keys are keys Podium can hold, none twice, and `?` says every action
    /// that has a key (the paired ones by their pair's words).
    @Test func theDefaultsAreHeldAndSaid() throws {
        let held = try Hotkeys()
        #expect(held.bindings.map(\.action) == LiveAction.global)
        // Only a key the user gives displaces another: two defaults alike would both be held.
        let defaults = try LiveAction.global.map { try Hotkey(parsing: $0.globalKey ?? "") }
        #expect(Set(defaults).count == defaults.count, "\(defaults)")
        let all = KeyCommand.help(layouts: true, window: true, replay: true)
        for action in LiveAction.all where action.help != nil {
            #expect(all.contains(action.help ?? ""), "\(action)")
        }
        #expect(KeyCommand.help(layouts: false, window: false) ==
                "keys: space pause, b w blank, h highlight, z zoom, d pen, + - frame rate, < > bit rate, "
                + "k keyframe, m mark, r record, p pause recording, q quit")
    }

    /// A mark (`m`): said, and kept for `--stats-json`, with its time.
    @Test func aMarkIsSaidAndKept() {
        let control = RunControl(tuning: LiveTuning(frameRate: FrameRate(30), plannedRate: nil), layout: nil,
                                 recordings: nil, presenter: PresenterTools(), hub: StreamHub(), clock: FakeClock(),
                                 logger: FakeGraph.logger, quit: {})
        let change = control.perform(.mark, from: .key)
        #expect(change?.line == "mark here, by key")
        #expect(control.takeChanges().map(\.setting) == ["mark"])
        #expect(LiveAction.action(forKey: "m")?.isOnTheRemote == true)
    }
}
