/// The columns of `podium bench`'s table and CSV file. Their widths are fixed before the first rate is
/// measured, so each row can be printed the moment it is measured and still line up with the others.
public struct BenchColumns: Sendable {
    /// A column: its table heading, its CSV heading(s), its width in the table and how a row fills it.
    private typealias Column = (table: String, csv: String, width: Int, value: @Sendable (BenchRow) -> String)

    private let columns: [Column]

    /// - Parameters:
    ///   - ladder: whether rows run several encoders (`--ladder`): then they say which, and what
    ///     scaling for the smaller ones cost.
    ///   - sound: whether rows carry sound (`--audio`): then they say what it cost.
    public init(ladder: Bool, sound: Bool = false) {
        var columns = Self.columns
        if sound, let after = columns.firstIndex(where: { $0.csv == "x_server_cores" }) {
            columns.insert(Self.soundColumn, at: after + 1)
        }
        self.columns = ladder ? columns + Self.ladderColumns : columns
    }

    private static let soundColumn: Column = ("audio cpu", "audio_cores", 9, { $0.audioCores?.fixed(3) ?? "" })

    // Widths hold the widest figure a row normally has; a wider one shifts the rest of its own line only.
    private static let columns: [Column] = [
        ("target", "target_fps", 6, \.target),
        ("fps", "achieved_fps", 6, { $0.achievedFPS.fixed(1) }),
        ("grabbed", "captured_fps", 7, { $0.capturedFPS.fixed(1) }),
        ("unchanged", "unchanged_fps", 9, { $0.unchangedFPS.fixed(1) }),
        ("dropped", "dropped", 7, { "\($0.dropped)" }),
        ("cpu", "cpu_cores", 6, { $0.cpuCores.fixed(3) }),
        ("X cpu", "x_server_cores", 6, { $0.xServerCores?.fixed(3) ?? "" }),
        ("grab ms p50/95/99", "grab_ms_p50,grab_ms_p95,grab_ms_p99", 20, { percentiles($0.grab) }),
        ("convert ms p50/95/99", "convert_ms_p50,convert_ms_p95,convert_ms_p99", 20, { percentiles($0.convert) }),
        ("encode ms p50/95/99", "encode_ms_p50,encode_ms_p95,encode_ms_p99", 20, { percentiles($0.encode) }),
        ("latency ms p50/99", "latency_ms_p50,latency_ms_p99", 17,
         { "\($0.latency.p50.fixed(1))/\($0.latency.p99.fixed(1))" }),
        ("Mbit/s", "mbps", 7, { $0.mbps.fixed(2) }),
        ("rate", "rate_met", 6, { $0.verdict ?? "" }),
    ]

    /// Last, so that the encoders' names, whose length depends on the ladder, shift nothing after them.
    private static let ladderColumns: [Column] = [
        ("scale ms p50", "scale_ms_p50", 12, { $0.scaleMilliseconds.fixed(2) }),
        ("encoders", "encoders", 0, \.ladder),
    ]

    private static func percentiles(_ times: StageTimes) -> String {
        "\(times.p50.fixed(2))/\(times.p95.fixed(2))/\(times.p99.fixed(2))"
    }

    /// The table's heading line, naming the columns.
    public var tableHeader: String { tableLine(columns.map(\.table)) }

    /// One row of the table, right-aligned under the heading.
    public func tableLine(_ row: BenchRow) -> String { tableLine(columns.map { $0.value(row) }) }

    private func tableLine(_ cells: [String]) -> String {
        zip(cells, columns).map { cell, column in
            String(repeating: " ", count: max(0, max(column.width, column.table.count) - cell.count)) + cell
        }.joined(separator: "  ") + "\n"
    }

    /// The CSV file's first line; percentile groups become one column each.
    public var csvHeader: String { columns.map(\.csv).joined(separator: ",") + "\n" }

    /// One row of the CSV file.
    public func csvLine(_ row: BenchRow) -> String {
        columns.map { $0.value(row).replacingSlashes() }.joined(separator: ",") + "\n"
    }
}

extension BenchReport {
    /// The line above the table: what was captured, how it was encoded, for how long.
    public static func heading(source: String, encoding: String, seconds: Double) -> String {
        "\(source); \(encoding); \(seconds.fixed(1)) s a rate\n"
    }

    private var columns: BenchColumns {
        BenchColumns(ladder: rows.contains { $0.renditions.count > 1 }, sound: rows.contains { $0.audioCores != nil })
    }

    /// A table for people: a line naming the source and encoding, the columns' heading, then right-aligned rows.
    public var table: String {
        let columns = columns
        return Self.heading(source: source, encoding: encoding, seconds: seconds) + columns.tableHeader
            + rows.map(columns.tableLine).joined()
    }

    /// Comma-separated values with a header line.
    public var csv: String {
        let columns = columns
        return columns.csvHeader + rows.map(columns.csvLine).joined()
    }
}

extension String {
    /// `1.0/2.0` → `1.0,2.0`, for CSV cells that hold several figures.
    fileprivate func replacingSlashes() -> String { String(map { $0 == "/" ? "," : $0 }) }
}
