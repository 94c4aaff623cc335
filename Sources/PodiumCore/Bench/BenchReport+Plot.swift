extension BenchReport {
    /// An SVG chart in three panels against the target rate: the rate achieved beside the ideal,
    /// Podium's and the X server's CPU, and the latency from grab to packet.
    /// - Parameter machine: what ran the benchmark, for the title, such as `host (AMD Ryzen 7 5800U, 16 cores)`.
    public func svg(machine: String) -> String {
        // Rates in ascending order, `max` last: its place on the x axis is after every number.
        func order(_ row: (offset: Int, element: BenchRow)) -> (Double, Int) {
            (Double(row.element.target) ?? .infinity, row.offset)
        }
        let rows = rows.enumerated().sorted { order($0) < order($1) }.map(\.element)
        func values(_ value: (BenchRow) -> Double?) -> [Double?] {
            rows.map { value($0).flatMap { $0.isFinite ? $0 : nil } }
        }
        let categories = rows.map(\.target)
        let xTitle = "target rate (fps)"
        var cpu = [ChartSeries(name: "Podium", color: "#d62728", values: values(\.cpuCores))]
        if rows.contains(where: { $0.xServerCores != nil }) {
            cpu.append(ChartSeries(name: "X server", color: "#9467bd", dash: "7 4", values: values(\.xServerCores)))
        }
        let charts = [
            LineChart(id: "fps", title: "Frame rate", xTitle: xTitle, yTitle: "achieved rate (fps)",
                      categories: categories,
                      series: [ChartSeries(name: "achieved", color: "#1f77b4", values: values(\.achievedFPS)),
                               ChartSeries(name: "ideal: achieved = target", color: "#888888", dash: "5 4",
                                           values: values { Double($0.target) }, marked: false, lineLabel: "ideal")]),
            LineChart(id: "cpu", title: "CPU", xTitle: xTitle, yTitle: "CPU (cores; 1 = one core busy)",
                      categories: categories, series: cpu),
            LineChart(id: "latency", title: "Latency, grab to encoded packet", xTitle: xTitle, yTitle: "latency (ms)",
                      categories: categories,
                      series: [ChartSeries(name: "p50", color: "#2ca02c", values: values(\.latency.p50)),
                               ChartSeries(name: "p99", color: "#ff7f0e", dash: "7 4", values: values(\.latency.p99))]),
        ]
        let chartWidth = 420.0, chartHeight = 340.0, titleHeight = 58.0
        let width = chartWidth * Double(charts.count), height = titleHeight + chartHeight + 8
        let panels = charts.enumerated().map { index, chart in
            chart.svg(x: chartWidth * Double(index), y: titleHeight, width: chartWidth, height: chartHeight)
        }
        let subtitle = "\(source) · \(encoding) · \(seconds.fixed(1)) s a rate"
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="white"/>
            <text class="title" x="\(Int(width / 2))" y="24" text-anchor="middle" font-size="16" \
            font-weight="bold">\("Podium bench on \(machine)".xmlEscaped)</text>
            <text class="subtitle" x="\(Int(width / 2))" y="44" text-anchor="middle" font-size="12" \
            fill="#444444">\(subtitle.xmlEscaped)</text>
            \(panels.joined())</svg>

            """
    }
}
