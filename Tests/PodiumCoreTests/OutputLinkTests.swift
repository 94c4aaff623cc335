@testable import PodiumCore
import Synchronization
import Testing

/// The pure parts of outputs that reconnect: the backoff, the record of outages, and how the
/// statistics line shows them.
@Suite struct OutputLinkTests {
    @Test func backoffDoublesUpToTenSeconds() {
        let backoff = Backoff()
        let delays = (1...7).map { backoff.delay(afterFailures: $0) }
        #expect(delays == [1, 2, 4, 8, 10, 10, 10].map { Duration.seconds($0) })
        #expect(backoff.delay(afterFailures: 10_000) == .seconds(10), "no overflow however long it lasts")
    }

    @Test func outagesAndTimeLost() {
        let link = LinkCounters()
        #expect(link.downFor(at: 5) == nil)
        // Not there at the start: down from the first failure, through three attempts.
        link.wentDown(at: 1_000_000_000)
        link.attemptFailed()
        link.wentDown(at: 2_000_000_000)
        link.attemptFailed()
        #expect(link.outages.load(ordering: .relaxed) == 1, "one outage however many attempts")
        #expect(link.failedAttempts.load(ordering: .relaxed) == 2)
        #expect(link.downFor(at: 4_000_000_000) == .seconds(3))
        link.cameUp(at: 4_000_000_000)
        #expect(link.downFor(at: 5_000_000_000) == nil)
        #expect(link.failedAttempts.load(ordering: .relaxed) == 0)
        link.wentDown(at: 10_000_000_000)
        #expect(link.timeLost(at: 10_500_000_000) == .milliseconds(3_500), "the ended outage and the current one")
        link.cameUp(at: 11_000_000_000)
        #expect(link.outages.load(ordering: .relaxed) == 2)
        #expect(link.timeLost(at: 20_000_000_000) == .seconds(4))
    }

    @Test func theLineShowsAReconnectingOutputAndTheSummaryItsOutages() {
        let sink = StatsSample.Sink(url: "tcp://h:1", mbps: 0, dropped: 0, failed: false, downSeconds: 4.04,
                                    failedAttempts: 1, outages: 2, secondsLost: 6.5)
        var sample = StatsSample(
            kind: "interval", elapsed: 1, targetFPS: 30, capturedFPS: 30, unchangedFPS: 0, encodedFPS: 30,
            presentedFPS: nil, frames: 30, drops: .init(skipped: 0, noBuffer: 0, encoder: 0, sinks: 0), mbps: 1,
            cpuCores: 0.1, stages: .init(grab: .empty, convert: .empty, encode: .empty, send: .empty, present: .empty,
                                         latency: .empty),
            renditions: [], sinks: [sink])
        #expect(sample.line.hasPrefix("1.0s  tcp://h:1 reconnecting (2nd try, down 4.0 s)  "), "\(sample.line)")
        #expect(sample.line(width: 50).hasPrefix("1.0s  reconnecting tcp://h:1  drop 0"),
                "the state stays, said shorter: \(sample.line(width: 50))")
        sample.kind = "summary"
        #expect(sample.line.contains("  tcp://h:1 2 outages, 6.5 s lost  "), "\(sample.line)")
        sample.sinks[0].downSeconds = nil
        sample.kind = "interval"
        #expect(!sample.line.contains("tcp://h:1"), "a connected output is not mentioned")
        sample.sinks[0].clients = 3
        #expect(sample.line.contains("  3 watching  "), "\(sample.line)")
        #expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(\.ordinal)
            == ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"])
    }
}
