import PodiumCore

/// Prints a table's or CSV file's rows on stdout the moment each is measured; JSON waits for the end.
///
/// Thread-safe: the invocation's stdout serializes writes.
struct BenchRowPrinter: Sendable {
    let format: BenchFormat
    let columns: BenchColumns
    let seconds: Double
    /// The invocation's stdout: unbuffered, so a row reaches a pipe or a file as soon as it is measured.
    let write: @Sendable (String) -> Void

    /// The lines above the rows.
    func printHeading(source: String, encoding: String) {
        StatsLine.clear()
        switch format {
        case .table:
            write(BenchReport.heading(source: source, encoding: encoding, seconds: seconds) + columns.tableHeader)
        case .csv: write(columns.csvHeader)
        case .json: break
        }
    }

    func printRow(_ row: BenchRow) {
        guard format != .json else { return }
        // The progress line shares the terminal: the row goes on a line of its own.
        StatsLine.clear()
        write(format == .table ? columns.tableLine(row) : columns.csvLine(row))
    }
}
