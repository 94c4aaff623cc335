@testable import PodiumCore
import PodiumTestSupport
import Testing

/// The live line and the summary at the widths terminals have, fed fixed samples, against golden
/// text in `Golden/stats-line.txt` (`PODIUM_UPDATE_GOLDEN=1` rewrites it after a deliberate change).
@Suite struct StatsLineTests {
    static let widths = [60, 80, 120, 200]

    /// A mirror that also records and streams, with a little of everything to show.
    static var busy: StatsSample {
        func times(_ p50: Double, _ p95: Double) -> StageTimes {
            StageTimes(count: 30, p50: p50, p95: p95, p99: p95 * 1.2, max: p95 * 1.5)
        }
        let rendition = StatsSample.Rendition(name: "1920x1080", outputs: ["talk.mkv", "udp://127.0.0.1:5000"],
                                              encodedFPS: 29.4, dropped: 1, mbps: 6.41, scale: .empty,
                                              encode: times(7.1, 9.8), latency: times(12.3, 17.0))
        let sinks = [
            StatsSample.Sink(url: "talk.mkv", mbps: 6.41, dropped: 0, failed: false, downSeconds: nil,
                             failedAttempts: 0, outages: 0, secondsLost: 0, clients: nil, bytes: 96_150_000),
            StatsSample.Sink(url: "udp://127.0.0.1:5000", mbps: 6.41, dropped: 2, failed: false, downSeconds: nil,
                             failedAttempts: 0, outages: 0, secondsLost: 0, clients: nil, bytes: 98_300_000),
        ]
        return StatsSample(
            kind: "interval", elapsed: 120.04, targetFPS: 30, capturedFPS: 29.4, unchangedFPS: 0.6,
            repaintedFPS: 0.6, rowsConverted: 1080, encodedFPS: 29.4, presentedFPS: 29.8, frames: 29,
            drops: .init(skipped: 1, noBuffer: 0, encoder: 1, sinks: 2, window: 0), mbps: 6.41, cpuCores: 0.83,
            stages: .init(grab: times(0.9, 1.4), convert: times(0.9, 1.1), encode: times(7.1, 9.8),
                          send: times(0.1, 0.2), present: times(1.2, 1.9), latency: times(12.3, 17.0)),
            renditions: [rendition], sinks: sinks)
    }

    /// The lines at each width, then the same while waiting and reconnecting, then the summary.
    static var rendered: String {
        var waiting = busy
        waiting.state = "waiting for HDMI-1"
        waiting.sinks[1].url = "rtmp://live.example.com/app/•••"
        waiting.sinks[1].downSeconds = 4.2
        waiting.sinks[1].failedAttempts = 2
        var summary = busy
        summary.kind = "summary"
        var text = ""
        for (name, sample) in [("running", busy), ("waiting", waiting)] {
            for width in widths {
                text += "\(name) \(width):\n\(sample.line(width: width))\n"
            }
        }
        text += "not a terminal:\n\(busy.line)\n"
        text += "summary 80:\n" + summary.summaryLines(width: 80 - 17).joined(separator: "\n") + "\n"
        return text
    }

    @Test func linesMatchGolden() throws {
        let text = Self.rendered
        #expect(text == (try Tools.golden("stats-line.txt", actual: text)))
    }

    @Test func everyLineFitsAndKeepsTheFiguresThatMatterMost() {
        var waiting = Self.busy
        waiting.state = "waiting for HDMI-1"
        // The figures that matter most, in order: one is shown only when those before it are.
        let ranked = ["2:00", "fps 29.4/30", "drop 4", "6.41 Mbit/s", "194.5 MB out", "cpu 0.83"]
        for sample in [Self.busy, waiting] {
            for width in Array(30...220) {
                let line = sample.line(width: width)
                #expect(line.count < width, "\(width): \(line)")
                let shown = ranked.map { line.contains($0) }
                #expect(shown == shown.sorted { $0 && !$1 }, "\(width): \(line)")
                if width >= 60 { #expect(shown.prefix(4).allSatisfy { $0 }, "\(width): \(line)") }
                if width >= 80, sample.state == nil { #expect(shown.allSatisfy { $0 }, "\(width): \(line)") }
                if width >= 40, sample.state != nil {
                    #expect(line.contains("waiting for HDMI-1"), "\(width): \(line)")
                }
            }
        }
        // With room, the stage times come too, under the names the JSON uses.
        let wide = Self.busy.line(width: 220)
        #expect(wide.contains("ms grab 0.9 present 1.2 convert 0.9 encode 7.1 send 0.1"), "\(wide)")
        let wider = Self.busy.line(width: 300)
        #expect(wider.contains("ms p50/p95 grab 0.9/1.4 present 1.2/1.9 convert 0.9/1.1 encode 7.1/9.8"), "\(wider)")
        #expect(wide.contains("drop 4 (skipped 1 encoder 1 sinks 2)"), "\(wide)")
        #expect(Self.busy.line == Self.busy.line(width: nil))
    }

    @Test func theSummaryKeepsEveryPartWrappedAtTheWidth() {
        var summary = Self.busy
        summary.kind = "summary"
        let lines = summary.summaryLines(width: 63)
        #expect(lines.count > 1 && lines.allSatisfy { $0.count <= 63 }, "\(lines)")
        // The same words as the one-line form, in the same order.
        #expect(lines.joined(separator: " ").split(separator: " ") == summary.line.split(separator: " "))
    }
}
