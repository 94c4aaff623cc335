extension BenchReport {
    /// An SVG chart: achieved frame rate, CPU and bitrate against the target rate, in three panels.
    public var svg: String {
        let panelWidth = 360.0, panelHeight = 280.0
        var body = ""
        let targets = rows.map { Double($0.target) }
        let panels: [(title: String, series: [(name: String, color: String, values: [Double?])], reference: [Double?]?)] = [
            ("frames per second", [("achieved", "#1f77b4", rows.map(\.achievedFPS))], targets),
            ("CPU, cores", [("Podium", "#d62728", rows.map(\.cpuCores))]
                + (rows.contains { $0.xServerCores != nil } ? [("X server", "#7f7f7f", rows.map(\.xServerCores))] : []), nil),
            ("output, Mbit/s", [("bitrate", "#2ca02c", rows.map(\.mbps))], nil),
        ]
        for (index, panel) in panels.enumerated() {
            body += Self.panel(title: panel.title, series: panel.series, reference: panel.reference, labels: rows.map(\.target),
                               x: Double(index) * panelWidth, width: panelWidth, height: panelHeight)
        }
        let width = panelWidth * Double(panels.count)
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(panelHeight + 40))" \
            viewBox="0 0 \(Int(width)) \(Int(panelHeight + 40))" font-family="sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="white"/>
            <text x="10" y="\(Int(panelHeight + 30))" fill="#444">\(Self.escaped("\(source); \(encoding); \(seconds.fixed(1)) s a rate; x: target fps"))</text>
            \(body)</svg>

            """
    }

    /// One chart: a title, a y axis from zero to a round maximum, the targets along x, a line per series.
    private static func panel(
        title: String, series: [(name: String, color: String, values: [Double?])], reference: [Double?]?, labels: [String],
        x: Double, width: Double, height: Double
    ) -> String {
        let left = x + 50, right = x + width - 15, top = 30.0, bottom = height - 30
        let largest = (series.flatMap { $0.values.compactMap { $0 } } + (reference ?? []).compactMap { $0 }).max() ?? 0
        let ceiling = roundUp(largest)
        func px(_ index: Int) -> Double { labels.count < 2 ? (left + right) / 2 : left + (right - left) * Double(index) / Double(labels.count - 1) }
        func py(_ value: Double) -> Double { bottom - (bottom - top) * value / ceiling }
        var svg = "<g>\n<text x=\"\(fmt(x + width / 2))\" y=\"18\" text-anchor=\"middle\" font-weight=\"bold\">\(escaped(title))</text>\n"
        for step in 0...4 {
            let value = ceiling * Double(step) / 4
            svg += "<line x1=\"\(fmt(left))\" y1=\"\(fmt(py(value)))\" x2=\"\(fmt(right))\" y2=\"\(fmt(py(value)))\" stroke=\"#e0e0e0\"/>"
            svg += "<text x=\"\(fmt(left - 5))\" y=\"\(fmt(py(value) + 4))\" text-anchor=\"end\">\(label(value))</text>\n"
        }
        for (index, text) in labels.enumerated() {
            svg += "<text x=\"\(fmt(px(index)))\" y=\"\(fmt(bottom + 16))\" text-anchor=\"middle\">\(escaped(text))</text>\n"
        }
        if let reference {
            svg += polyline(reference, color: "#999999", dashed: true, px: px, py: py)
        }
        for (offset, line) in series.enumerated() {
            svg += polyline(line.values, color: line.color, dashed: false, px: px, py: py)
            for (index, value) in line.values.enumerated() {
                guard let value else { continue }
                svg += "<circle cx=\"\(fmt(px(index)))\" cy=\"\(fmt(py(value)))\" r=\"3\" fill=\"\(line.color)\"/>\n"
            }
            svg += "<text x=\"\(fmt(left + 8))\" y=\"\(fmt(top + 12 + 14 * Double(offset)))\" fill=\"\(line.color)\">\(escaped(line.name))</text>\n"
        }
        return svg + "</g>\n"
    }

    /// Joins the points that have values (a target of `max` has no reference point).
    private static func polyline(_ values: [Double?], color: String, dashed: Bool, px: (Int) -> Double, py: (Double) -> Double) -> String {
        let points = values.enumerated().compactMap { index, value in value.map { "\(fmt(px(index))),\(fmt(py($0)))" } }
        guard points.count > 1 else { return "" }
        return "<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"\(dashed ? " stroke-dasharray=\"4 3\"" : "")/>\n"
    }

    /// 1, 2 or 5 times a power of ten, at least `value` (and above zero).
    static func roundUp(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        var power = 1.0
        while power * 10 <= value { power *= 10 }
        while power > value { power /= 10 }
        for factor in [1.0, 2.0, 5.0, 10.0] where power * factor >= value { return power * factor }
        return power * 10
    }

    private static func label(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value))" : value.fixed(value < 1 ? 3 : 1)
    }

    private static func fmt(_ value: Double) -> String { value.fixed(1) }

    private static func escaped(_ text: String) -> String {
        text.reduce(into: "") { result, character in
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
    }
}
