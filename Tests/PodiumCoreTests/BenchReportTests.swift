@testable import PodiumCore
import Testing

struct BenchReportTests {
    @Test func sweepsParse() throws {
        #expect(try BenchRate.sweep(parsing: "5,30,max") == [.fps(5), .fps(30), .max])
        #expect(try BenchRate.sweep(parsing: "60") == [.fps(60)])
        for bad in ["", "0", "30,,60", "241", "max,max", "30, x"] {
            #expect(throws: OptionParseError.self, "\(bad)") { try BenchRate.sweep(parsing: bad) }
        }
    }

    func report() -> BenchReport {
        func times(_ base: Double) -> StageTimes { StageTimes(count: 10, p50: base, p95: base * 2, p99: base * 3, max: base * 4) }
        func row(_ target: BenchRate, fps: Double, cpu: Double, unchanged: Double = 0) -> BenchRow {
            let sample = StatsSample(kind: "interval", elapsed: 5, targetFPS: target.framesPerSecond ?? 240,
                                     capturedFPS: fps,
                                     unchangedFPS: unchanged, encodedFPS: fps,
                                     presentedFPS: nil, frames: Int(fps * 5), drops: .init(skipped: 7, noBuffer: 1, encoder: 2, sinks: 0),
                                     mbps: fps / 10, cpuCores: cpu,
                                     stages: .init(grab: times(0.5), convert: times(1), encode: times(4), send: .empty, present: .empty, latency: times(6)),
                                     renditions: [], sinks: [])
            return BenchRow(target: target, sample: sample, xServerCores: 0.1)
        }
        return BenchReport(source: ":1 1920x1080+0+0 with MIT-SHM (scene video)", encoding: "1920x1080 h264 libx264 ultrafast", seconds: 5,
                           rows: [row(.fps(30), fps: 29.9, cpu: 0.25), row(.max, fps: 130.2, cpu: 1.7),
                                  row(.fps(60), fps: 50, cpu: 0.9), row(.fps(60), fps: 2, cpu: 0.01, unchanged: 56)])
    }

    /// A rate is met when 95 % of its slots gave a frame or found nothing new on screen.
    @Test func eachRateSaysWhetherItWasMet() {
        #expect(report().rows.map(\.verdict) == ["met", nil, "missed", "met"])
        #expect(report().table.split(separator: "\n")[4].hasSuffix("missed"))
    }

    @Test func maxRowsDoNotCountSkippedSlotsAsDrops() {
        let rows = report().rows
        #expect(rows[0].dropped == 10 && rows[1].dropped == 3)
    }

    @Test func tableAndCSVLineUp() {
        let report = report()
        let table = report.table.split(separator: "\n")
        #expect(table.count == 6 && table[0].contains("scene video"))
        #expect(Set(table.dropFirst().map(\.count)).count == 1, "columns aligned: \(report.table)")
        #expect(table[3].split(separator: " ").first == "max" && table[3].contains("130.2") && table[3].contains("4.00/8.00/12.00"))
        let csv = report.csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(csv.count == 5 && csv.allSatisfy { $0.count == csv[0].count }, "\(report.csv)")
        #expect(csv[2][csv[0].firstIndex(of: "encode_ms_p99")!] == "12.00")
        #expect(csv[1][csv[0].firstIndex(of: "latency_ms_p99")!] == "18.0")
    }

    @Test func plotHasAPointPerRowAndSeries() {
        let svg = report().svg
        #expect(svg.hasPrefix("<?xml") && svg.hasSuffix("</svg>\n"))
        // fps, Podium CPU, X server CPU, bitrate: 4 series × 4 rows.
        #expect(svg.split(separator: "<circle", omittingEmptySubsequences: false).count - 1 == 16)
        #expect(BenchReport.roundUp(130.2) == 200 && BenchReport.roundUp(1.7) == 2 && BenchReport.roundUp(0.25) == 0.5 && BenchReport.roundUp(0) == 1)
    }
}
