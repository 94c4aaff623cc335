import Foundation
import PodiumCore
import PodiumTestSupport
import Testing

/// `podium bench` on its own private display with a scene, read back as JSON and SVG by other parsers.
@Suite(.serialized) struct BenchTests {
    @Test func jsonRowsHaveEveryFieldAndThePlotParses() throws {
        let folder = try Tools.temporaryFolder()
        let plot = folder.appendingPathComponent("bench.svg").path
        func bench() throws -> (result: CommandResult, json: [String: Any]?) {
            // A second try writes the plot afresh: podium never replaces a file unasked.
            try? FileManager.default.removeItem(atPath: plot)
            let result = try Tools.podium(["bench", "--scene", "video", "--scene-size", "640x480", "--fps", "10,30",
                                           "--seconds", "1", "--format", "json", "--plot", plot], timeout: 120)
            return (result, try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        }
        // Beside the main group's other tests the machine's two cores may starve the scene itself
        // (19 fps of 30 in one fresh-clone run): a bench whose rates were not met is made once more.
        func metTheRates(_ json: [String: Any]?) -> Bool {
            let rows = json?["rows"] as? [[String: Any]] ?? []
            return rows.count == 2 && zip(rows, [10.0, 30.0]).allSatisfy { row, target in
                let achieved = (row["achievedFPS"] as? NSNumber)?.doubleValue ?? 0
                return achieved > target * 0.8 && achieved < target * 1.2
            }
        }
        var (result, measured) = try bench()
        if !metTheRates(measured) { (result, measured) = try bench() }
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(measured, "\(result.stdout)")
        #expect((json["source"] as? String)?.contains("640x480") == true
                    && (json["source"] as? String)?.contains("scene video") == true)
        #expect((json["encoding"] as? String)?.contains("h264") == true)
        let rows = try #require(json["rows"] as? [[String: Any]])
        #expect(rows.map { $0["target"] as? String } == ["10", "30"])
        let numbers = ["achievedFPS", "capturedFPS", "unchangedFPS", "dropped", "cpuCores", "xServerCores", "mbps"]
        let stages = ["grab", "convert", "encode", "latency"]
        for (row, target) in zip(rows, [10.0, 30.0]) {
            for key in numbers { #expect(row[key] is NSNumber, "\(key) in \(row)") }
            for key in stages {
                let times = row[key] as? [String: Any]
                #expect(["p50", "p95", "p99", "max", "count"].allSatisfy { times?[$0] is NSNumber }, "\(key) in \(row)")
            }
            // The scene draws at the target rate and capture keeps up with it at 640x480.
            let achieved = (row["achievedFPS"] as? NSNumber)?.doubleValue ?? 0
            #expect(achieved > target * 0.8 && achieved < target * 1.2, "\(achieved) fps for \(target)")
            #expect(((row["mbps"] as? NSNumber)?.doubleValue ?? 0) > 0)
            let latency = row["latency"] as? [String: Any]
            #expect(((latency?["count"] as? NSNumber)?.intValue ?? 0) > 0)
        }
        // A real XML parser reads the chart: three panels, each with its axis titles and a legend
        // swatch per line, the ideal line labelled, and a dot per rate on every measured line.
        let script = """
            import sys, json, xml.etree.ElementTree as tree
            svg = "{http://www.w3.org/2000/svg}"
            def of_class(element, name): return [e for e in element.iter() if e.get("class") == name]
            root = tree.parse(sys.argv[1]).getroot()
            panels = of_class(root, "panel")
            print(json.dumps({
                "title": of_class(root, "title")[0].text,
                "panels": [p.get("id") for p in panels],
                "axisTitles": [[t.text for t in of_class(p, "axis-title")] for p in panels],
                "swatches": [len(of_class(p, "swatch")) for p in panels],
                "lineLabels": [[t.text for t in of_class(p, "line-label")] for p in panels],
                "dots": [len([c for s in of_class(p, "series") for c in s.findall(svg + "circle")]) for p in panels],
                "xTicks": [[t.text for t in of_class(p, "x-tick")] for p in panels],
            }))
            """
        let parsed = try Tools.run("python3", ["-c", script, plot])
        #expect(parsed.status == 0, "\(parsed.stderr)")
        let chart = try #require(try JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as? [String: Any])
        #expect((chart["title"] as? String)?.hasPrefix("Podium bench on ") == true, "\(chart)")
        #expect(chart["panels"] as? [String] == ["fps", "cpu", "latency"], "\(chart)")
        let axisTitles = chart["axisTitles"] as? [[String]] ?? []
        let units = axisTitles.map { $0.last ?? "" }.allSatisfy { $0.hasSuffix(")") }
        #expect(axisTitles.map(\.count) == [2, 2, 2] && units, "a unit in each y axis title: \(chart)")
        #expect(chart["swatches"] as? [Int] == [2, 2, 2], "\(chart)")
        #expect(chart["lineLabels"] as? [[String]] == [["ideal"], [], []], "\(chart)")
        // Two rates × (achieved), (Podium, X server), (p50, p99).
        #expect(chart["dots"] as? [Int] == [2, 4, 4], "\(chart)")
        #expect(chart["xTicks"] as? [[String]] == Array(repeating: ["10", "30"], count: 3), "\(chart)")
        #expect(try !String(contentsOfFile: plot, encoding: .utf8).lowercased().contains("nan"))
    }

    /// `--ladder` adds one encoding a row, each made from the one conversion: the scaled rungs
    /// report their scaling time, and every rung keeps the rate.
    @Test func ladderRowsAddAnEncodingEach() throws {
        let result = try Tools.podium(["bench", "--scene", "video", "--scene-size", "640x360", "--ladder", "360p,180p",
                                       "--fps", "15", "--seconds", "1", "--format", "csv"], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
            .map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(lines.count == 3, "\(result.stdout)")
        guard lines.count == 3, let encoders = lines[0].firstIndex(of: "encoders"),
              let scale = lines[0].firstIndex(of: "scale_ms_p50"), let met = lines[0].firstIndex(of: "rate_met")
        else { return }
        #expect(lines[1][encoders] == "640x360" && lines[2][encoders] == "640x360+320x180", "\(result.stdout)")
        #expect(Double(lines[1][scale]) == 0 && Double(lines[2][scale]) ?? 0 > 0, "\(result.stdout)")
        // Every rung keeps (near) the rate: each slot gave a frame or found the scene not yet drawn
        // again. A one-second run on a loaded machine can lose a slot, so the verdict is checked
        // against the row's own figures rather than required to be "met".
        guard let achieved = lines[0].firstIndex(of: "achieved_fps"),
              let unchanged = lines[0].firstIndex(of: "unchanged_fps") else { return }
        for row in lines.dropFirst() {
            let kept = (Double(row[achieved]) ?? 0) + (Double(row[unchanged]) ?? 0)
            #expect(kept > 15 * 0.8, "\(result.stdout)")
            // The CSV rounds to tenths: a row within rounding of the 95 % line may go either way.
            if abs(kept - 15 * 0.95) > 0.1 {
                #expect(row[met] == (kept > 15 * 0.95 ? "met" : "missed"), "\(result.stdout)")
            }
        }
    }

    @Test func tableAndCSVHaveARowPerRate() throws {
        let result = try Tools.podium(["bench", "--scene", "static", "--scene-size", "320x240", "--fps", "15",
                                       "--seconds", "1", "--format", "csv"], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        try #require(lines.count == 2, "\(result.stdout)")
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false)
        let row = lines[1].split(separator: ",", omittingEmptySubsequences: false)
        #expect(header.count == row.count && header.first == "target_fps" && row.first == "15", "\(result.stdout)")
        // Nothing changes on a static scene: slots are unchanged, and only the idle repeat is encoded
        // (a picture a second; two in a measured second that comes out a little short: 2.1).
        let unchanged = Double(row[header.firstIndex(of: "unchanged_fps")!]) ?? 0
        let achieved = Double(row[header.firstIndex(of: "achieved_fps")!]) ?? 99
        #expect(unchanged > 10 && achieved < 4, "\(result.stdout)")
    }

    /// Each row is printed as soon as its rate is measured, under a heading printed before it.
    @Test func tableRowsArePrintedAsTheyAreMeasured() throws {
        let bench = try Tools.start(Tools.podium.path, ["bench", "--scene", "static", "--scene-size", "320x240",
                                                        "--fps", "10,15", "--seconds", "1"])
        // The second rate's progress comes after the first rate's row.
        try bench.waitForStderr(containing: "bench: 15 fps (2 of 2)", timeout: 60)
        let early = bench.stdoutSoFar.split(separator: "\n")
        let result = try bench.wait(timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(early.count == 3 && early.last?.split(separator: " ").first == "10", "\(early)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 4 && lines[0].contains("320x240") && lines[0].contains("scene static"),
                "\(result.stdout)")
        #expect(lines[1].hasPrefix("target") && Set(lines.dropFirst().map(\.count)).count == 1,
                "aligned: \(result.stdout)")
        #expect(lines.dropFirst(2).map { $0.split(separator: " ").first } == ["10", "15"], "\(result.stdout)")
    }
}
