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
        func times(_ base: Double) -> StageTimes {
            StageTimes(count: 10, p50: base, p95: base * 2, p99: base * 3, max: base * 4)
        }
        func row(_ target: BenchRate, fps: Double, cpu: Double, unchanged: Double = 0) -> BenchRow {
            let sample = StatsSample(kind: "interval", elapsed: 5, targetFPS: target.framesPerSecond ?? 240,
                                     capturedFPS: fps,
                                     unchangedFPS: unchanged, encodedFPS: fps,
                                     presentedFPS: nil, frames: Int(fps * 5),
                                     drops: .init(skipped: 7, noBuffer: 1, encoder: 2, sinks: 0),
                                     mbps: fps / 10, cpuCores: cpu,
                                     stages: .init(grab: times(0.5), convert: times(1), encode: times(4),
                                                   send: .empty, present: .empty, latency: times(6)),
                                     renditions: [], sinks: [])
            return BenchRow(target: target, sample: sample, xServerCores: 0.1)
        }
        return BenchReport(source: ":1 1920x1080+0+0 with MIT-SHM (scene video)",
                           encoding: "1920x1080 h264 libx264 ultrafast", seconds: 5,
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
        #expect(table[3].split(separator: " ").first == "max" && table[3].contains("130.2")
                    && table[3].contains("4.00/8.00/12.00"))
        let csv = report.csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(csv.count == 5 && csv.allSatisfy { $0.count == csv[0].count }, "\(report.csv)")
        #expect(csv[2][csv[0].firstIndex(of: "encode_ms_p99")!] == "12.00")
        #expect(csv[1][csv[0].firstIndex(of: "latency_ms_p99")!] == "18.0")
    }

    /// Streamed rows line up with a heading printed before any row was measured.
    @Test func columnsAreFixedBeforeTheFirstRow() {
        let columns = BenchColumns(ladder: false)
        for row in report().rows {
            #expect(columns.tableLine(row).count == columns.tableHeader.count,
                    "\(columns.tableHeader)\(columns.tableLine(row))")
            #expect(columns.csvLine(row).split(separator: ",").count == columns.csvHeader.split(separator: ",").count)
        }
        #expect(columns.tableHeader.hasSuffix("rate\n") && columns.csvHeader.hasPrefix("target_fps,achieved_fps,"))
        // The encoders' names come last, where their varying length shifts no other column.
        #expect(BenchColumns(ladder: true).csvHeader.hasSuffix(",rate_met,scale_ms_p50,encoders\n"))
    }

    @Test func plotHasThePanelsWithTitledAxesAndLegendSwatches() throws {
        let svg = try SVGDocument(report().svg(machine: "studio (AMD EPYC, 2 cores)"))
        let title = try #require(svg.root.descendants(class: "title").first?.text)
        #expect(title.contains("studio (AMD EPYC, 2 cores)"))
        let subtitle = try #require(svg.root.descendants(class: "subtitle").first?.text)
        #expect(["1920x1080", "scene video", "h264", "libx264"].allSatisfy(subtitle.contains), "\(subtitle)")

        let panels = svg.root.descendants(class: "panel")
        #expect(panels.map { $0.attributes["id"] } == ["fps", "cpu", "latency"])
        #expect(panels.map { $0.descendants(class: "axis-title").map(\.text) } == [
            ["target rate (fps)", "achieved rate (fps)"],
            ["target rate (fps)", "CPU (cores; 1 = one core busy)"],
            ["target rate (fps)", "latency (ms)"],
        ])
        for panel in panels {
            // Each line has a swatch in the legend: the same colour and the same dash.
            func look(_ line: SVGDocument.Element) -> [String?] {
                [line.attributes["stroke"], line.attributes["stroke-dasharray"]]
            }
            let swatches = panel.descendants(class: "swatch").map(look)
            let lines = panel.descendants(class: "series").compactMap { $0.children.first { $0.name == "polyline" } }
                .map(look)
            #expect(swatches.count == 2 && Set(swatches) == Set(lines), "\(panel.attributes)")
            #expect(panel.descendants(class: "x-tick").map(\.text) == ["30", "60", "60", "max"], "max comes last")
        }
        #expect(panels.map { $0.descendants(class: "y-tick").map(\.text) } == [
            ["0", "50", "100", "150"], ["0.0", "0.5", "1.0", "1.5", "2.0"], ["0", "5", "10", "15", "20"],
        ])
        // The ideal line is labelled on the chart and has no point for max.
        let labels = svg.root.descendants(class: "line-label")
        #expect(labels.map(\.text) == ["ideal"] && panels[0].descendants(class: "line-label").count == 1)
        let idealSeries = panels[0].descendants(class: "series").first { !$0.descendants(class: "line-label").isEmpty }
        let ideal = try #require(idealSeries?.children.first { $0.name == "polyline" })
        #expect(ideal.attributes["stroke-dasharray"] != nil)
        #expect(idealSeries?.children.contains { $0.name == "circle" } == false, "a reference has no measured points")
        #expect(ideal.attributes["points"]?.split(separator: " ").count == 3)
        // Dots lie on the plot: achieved, Podium, X server, p50 and p99, at each of 4 rows.
        let dots = panels.flatMap { $0.descendants(class: "series") }
            .flatMap { $0.children.filter { $0.name == "circle" } }
        #expect(dots.count == 20)
        #expect(dots.allSatisfy { Double($0.attributes["cy"] ?? "").map { (58...288).contains($0) } == true })
    }

    /// One row, zeros and figures that are not numbers still make a chart a browser can draw.
    @Test func plotOfOneRowOfZerosHasNoNaN() throws {
        let source = report()
        var zero = source.rows[0]
        (zero.target, zero.achievedFPS, zero.cpuCores, zero.xServerCores) = ("15", 0, .nan, .infinity)
        zero.latency = StageTimes(count: 0, p50: 0, p95: 0, p99: 0, max: 0)
        for rows in [[zero], [source.rows[1]]] {
            let report = BenchReport(source: source.source, encoding: source.encoding, seconds: 1, rows: rows)
            let text = report.svg(machine: "vm")
            #expect(!text.lowercased().contains("nan") && !text.lowercased().contains("inf"), "\(text)")
            let svg = try SVGDocument(text)
            #expect(svg.root.descendants(class: "panel").count == 3)
            #expect(svg.root.descendants(class: "x-tick").map(\.text) == Array(repeating: rows[0].target, count: 3),
                    "one category in each panel")
            // A lone target is still shown, as a level mark; max has none.
            #expect(svg.root.descendants(class: "line-label").count == (rows[0].target == "max" ? 0 : 1))
        }
        let zeros = try SVGDocument(BenchReport(source: "", encoding: "", seconds: 1, rows: [zero]).svg(machine: "vm"))
        let cpuTicks = zeros.root.descendants(class: "panel")[1].descendants(class: "y-tick").map(\.text)
        #expect(cpuTicks == ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"])
    }

    @Test func axesTickRoundStepsWithOneNumberOfDecimals() {
        #expect(ChartAxis(covering: 130.2).labels == ["0", "50", "100", "150"])
        #expect(ChartAxis(covering: 60).labels == ["0", "20", "40", "60"])
        #expect(ChartAxis(covering: 1.7).labels == ["0.0", "0.5", "1.0", "1.5", "2.0"])
        #expect(ChartAxis(covering: 0.25).labels == ["0.00", "0.05", "0.10", "0.15", "0.20", "0.25"])
        #expect(ChartAxis(covering: 0.0001).labels == ["0.000", "0.001"])
        #expect([0, .nan, .infinity, -3].allSatisfy { ChartAxis(covering: $0).top == 1 })
        #expect(ChartAxis(covering: 7_300).labels == ["0", "2000", "4000", "6000", "8000"])
    }
}
