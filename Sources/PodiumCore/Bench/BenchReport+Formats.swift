extension BenchReport {
    /// The columns of the table and the CSV file, and how each row fills them.
    private typealias Column = (table: String, csv: String, value: @Sendable (BenchRow) -> String)

    /// With a ladder, which encoders each row ran and what scaling for the smaller ones cost.
    private var columns: [Column] {
        guard rows.contains(where: { $0.renditions.count > 1 }) else { return Self.columns }
        let ladder: [Column] = [("encoders", "encoders", \.ladder),
                                ("scale ms p50", "scale_ms_p50", { $0.scaleMilliseconds.fixed(2) })]
        return [Self.columns[0]] + ladder + Self.columns.dropFirst()
    }

    private static let columns: [Column] = [
        ("target", "target_fps", \.target),
        ("fps", "achieved_fps", { $0.achievedFPS.fixed(1) }),
        ("grabbed", "captured_fps", { $0.capturedFPS.fixed(1) }),
        ("unchanged", "unchanged_fps", { $0.unchangedFPS.fixed(1) }),
        ("dropped", "dropped", { "\($0.dropped)" }),
        ("cpu", "cpu_cores", { $0.cpuCores.fixed(3) }),
        ("X cpu", "x_server_cores", { $0.xServerCores?.fixed(3) ?? "" }),
        ("grab ms p50/95/99", "grab_ms_p50,grab_ms_p95,grab_ms_p99", { percentiles($0.grab) }),
        ("convert ms p50/95/99", "convert_ms_p50,convert_ms_p95,convert_ms_p99", { percentiles($0.convert) }),
        ("encode ms p50/95/99", "encode_ms_p50,encode_ms_p95,encode_ms_p99", { percentiles($0.encode) }),
        ("latency ms p50/99", "latency_ms_p50,latency_ms_p99", { "\($0.latency.p50.fixed(1))/\($0.latency.p99.fixed(1))" }),
        ("Mbit/s", "mbps", { $0.mbps.fixed(2) }),
        ("rate", "rate_met", { $0.verdict ?? "" }),
    ]

    private static func percentiles(_ times: StageTimes) -> String {
        "\(times.p50.fixed(2))/\(times.p95.fixed(2))/\(times.p99.fixed(2))"
    }

    /// A table for people: a heading line, then right-aligned columns.
    public var table: String {
        let columns = columns
        let cells = [columns.map(\.table)] + rows.map { row in columns.map { $0.value(row) } }
        let widths = columns.indices.map { column in cells.map { $0[column].count }.max() ?? 0 }
        let lines = cells.map { line in
            zip(line, widths).map { String(repeating: " ", count: $1 - $0.count) + $0 }.joined(separator: "  ")
        }
        return (["\(source); \(encoding); \(seconds.fixed(1)) s a rate"] + lines).joined(separator: "\n") + "\n"
    }

    /// Comma-separated values with a header line; percentile groups become one column each.
    public var csv: String {
        let columns = columns
        let header = columns.map(\.csv).joined(separator: ",")
        let lines = rows.map { row in columns.map { $0.value(row).replacingSlashes() }.joined(separator: ",") }
        return ([header] + lines).joined(separator: "\n") + "\n"
    }
}

extension String {
    /// `1.0/2.0` → `1.0,2.0`, for CSV cells that hold several figures.
    fileprivate func replacingSlashes() -> String { String(map { $0 == "/" ? "," : $0 }) }
}
