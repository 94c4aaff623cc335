/// A value axis from zero to a round top, ticked every round step (1, 2 or 5 times a power of ten),
/// so that every tick label has the same number of decimals.
struct ChartAxis: Equatable {
    /// The distance between ticks.
    let step: Double
    /// How many steps from zero to the top.
    let steps: Int
    /// Decimals in every tick label: enough to tell the steps apart, never more.
    let decimals: Int

    var top: Double { step * Double(steps) }

    /// The tick labels, from zero up.
    var labels: [String] { (0...steps).map { (step * Double($0)).fixed(decimals) } }

    /// The smallest round axis that holds `largest` in at most `maxSteps` steps. With nothing to
    /// show (no value, or only zeros) the axis runs to 1, so the chart still has a scale.
    /// The finest step is 0.001: `Double.fixed` shows at most three decimals.
    init(covering largest: Double, maxSteps: Int = 5) {
        let largest = largest.isFinite && largest > 0 ? largest : 1
        var exponent = -3, factorIndex = 0
        let factors = [1.0, 2.0, 5.0]
        func step() -> Double { factors[factorIndex] * Self.power(of: exponent) }
        // The tolerance keeps 60 on a 20-step axis at 3 steps despite rounding in the division.
        while (largest / step() - 1e-9).rounded(.up) > Double(maxSteps) {
            factorIndex += 1
            if factorIndex == factors.count { (factorIndex, exponent) = (0, exponent + 1) }
        }
        self.step = step()
        steps = max(1, Int((largest / step() - 1e-9).rounded(.up)))
        decimals = max(0, -exponent)
    }

    /// 10 to an integer power, exact for the powers an axis uses (a division keeps 0.001 exact).
    private static func power(of exponent: Int) -> Double {
        let magnitude = (0..<abs(exponent)).reduce(1.0) { product, _ in product * 10 }
        return exponent < 0 ? 1 / magnitude : magnitude
    }
}

/// One line of a chart: a value per category, `nil` where it has none.
struct ChartSeries {
    /// The name in the legend.
    var name: String
    var color: String
    /// An SVG `stroke-dasharray` such as `6 3`; `nil` for a solid line.
    var dash: String?
    var values: [Double?]
    /// Dots on the measured values; a reference line (the ideal) has none.
    var marked = true
    /// Written on the chart next to the line's last point, for a line people must find without the legend.
    var lineLabel: String?
}

/// A line chart over categories (the target rates): a title, a legend with a sample of each line,
/// axes with titles and round ticks, and the series. Categories are evenly spaced, so a last
/// category such as `max`, which has no number, still has its place.
struct LineChart {
    /// The `id` of the chart's `<g>`, for people and tests reading the SVG.
    var id: String
    var title: String
    var xTitle: String
    var yTitle: String
    var categories: [String]
    var series: [ChartSeries]

    private static let axisColor = "#333333", gridColor = "#e4e4e4", mutedColor = "#555555"
    /// The width of one character at the chart's 11 px font, near enough to lay out the legend.
    private static let characterWidth = 6.2

    /// Whether the last category is `max`, which is not a point on the rate scale: it is set apart
    /// by a dotted rule, and no line joins it to the numbered rates.
    private var lastCategoryIsApart: Bool { categories.count > 1 && categories.last == BenchRate.max.description }

    /// The chart as an SVG group placed at (`x`, `y`).
    func svg(x: Double, y: Double, width: Double, height: Double) -> String {
        let plot = (left: 64.0, right: width - 18, top: 58.0, bottom: height - 52)
        // A tenth of headroom keeps the highest point and its label clear of the legend.
        let axis = ChartAxis(covering: (series.flatMap { $0.values.compactMap { $0 } }.max() ?? 0) * 1.1)
        let band = (plot.right - plot.left) / Double(max(1, categories.count))
        func px(_ index: Int) -> Double { plot.left + band * (Double(index) + 0.5) }
        func py(_ value: Double) -> Double {
            plot.bottom - (plot.bottom - plot.top) * min(max(value, 0), axis.top) / axis.top
        }

        var svg = "<g id=\"\(id)\" class=\"panel\" transform=\"translate(\(x.svg) \(y.svg))\">\n"
        svg += "<text class=\"panel-title\" x=\"\((width / 2).svg)\" y=\"16\" text-anchor=\"middle\" "
            + "font-size=\"13\" font-weight=\"bold\">\(title.xmlEscaped)</text>\n"
        svg += legend(x: plot.left, y: 38)
        for (index, label) in axis.labels.enumerated() {
            let level = py(axis.step * Double(index))
            if index > 0 { svg += line(plot.left, level, plot.right, level, color: Self.gridColor) }
            svg += line(plot.left - 4, level, plot.left, level, color: Self.axisColor)
            svg += "<text class=\"y-tick\" x=\"\((plot.left - 7).svg)\" y=\"\((level + 4).svg)\" "
                + "text-anchor=\"end\">\(label)</text>\n"
        }
        for (index, category) in categories.enumerated() {
            svg += line(px(index), plot.bottom, px(index), plot.bottom + 4, color: Self.axisColor)
            svg += "<text class=\"x-tick\" x=\"\(px(index).svg)\" y=\"\((plot.bottom + 17).svg)\" "
                + "text-anchor=\"middle\">\(category.xmlEscaped)</text>\n"
        }
        if lastCategoryIsApart {
            let between = plot.left + band * Double(categories.count - 1)
            svg += line(between, plot.top, between, plot.bottom, color: "#bbbbbb", dash: "2 3")
        }
        svg += line(plot.left, plot.top, plot.left, plot.bottom, color: Self.axisColor)
        svg += line(plot.left, plot.bottom, plot.right, plot.bottom, color: Self.axisColor)
        svg += "<text class=\"axis-title\" x=\"\(((plot.left + plot.right) / 2).svg)\" y=\"\((plot.bottom + 38).svg)\" "
            + "text-anchor=\"middle\" fill=\"\(Self.mutedColor)\">\(xTitle.xmlEscaped)</text>\n"
        let middle = (plot.top + plot.bottom) / 2
        svg += "<text class=\"axis-title\" x=\"16\" y=\"\(middle.svg)\" transform=\"rotate(-90 16 \(middle.svg))\" "
            + "text-anchor=\"middle\" fill=\"\(Self.mutedColor)\">\(yTitle.xmlEscaped)</text>\n"
        // Reference lines first, so that measured lines which meet them are drawn on top.
        for entry in series.filter({ !$0.marked }) + series.filter(\.marked) {
            svg += drawn(entry, px: px, py: py, halfBand: band / 2, centre: (plot.left + plot.right) / 2)
        }
        return svg + "</g>\n"
    }

    /// One entry a series, side by side: a short sample of the line (its colour, dash and dot), then its name.
    private func legend(x: Double, y: Double) -> String {
        var svg = "<g class=\"legend\">\n"
        var left = x
        for entry in series {
            svg += "<g class=\"legend-entry\">"
            svg += line(left, y, left + 24, y, color: entry.color, dash: entry.dash, width: 2, className: "swatch")
            if entry.marked {
                svg += "<circle cx=\"\((left + 12).svg)\" cy=\"\(y.svg)\" r=\"3\" fill=\"\(entry.color)\"/>"
            }
            svg += "<text x=\"\((left + 30).svg)\" y=\"\((y + 4).svg)\">\(entry.name.xmlEscaped)</text></g>\n"
            left += 30 + Double(entry.name.count) * Self.characterWidth + 16
        }
        return svg + "</g>\n"
    }

    /// A series: its line through the values it has, its dots, and its label by the last point.
    private func drawn(_ series: ChartSeries, px: (Int) -> Double, py: (Double) -> Double,
                       halfBand: Double, centre: Double) -> String {
        let points = series.values.enumerated().compactMap { index, value in
            value.map { (index: index, x: px(index), y: py($0)) }
        }
        let joined = lastCategoryIsApart ? points.filter { $0.index < categories.count - 1 } : points
        guard let last = points.last else { return "" }
        var svg = "<g class=\"series\">\n"
        let dash = series.dash.map { " stroke-dasharray=\"\($0)\"" } ?? ""
        if joined.count > 1 {
            let list = joined.map { "\($0.x.svg),\($0.y.svg)" }.joined(separator: " ")
            svg += "<polyline points=\"\(list)\" fill=\"none\" stroke=\"\(series.color)\" stroke-width=\"2\"\(dash)/>\n"
        } else if !series.marked {
            // A lone reference value has no line to draw: a level mark across its category shows it.
            svg += line(last.x - halfBand * 0.6, last.y, last.x + halfBand * 0.6, last.y,
                        color: series.color, dash: series.dash, width: 2)
        }
        if series.marked {
            for point in points {
                svg += "<circle cx=\"\(point.x.svg)\" cy=\"\(point.y.svg)\" r=\"3.5\" fill=\"\(series.color)\"/>\n"
            }
        }
        if let label = series.lineLabel {
            // Above the last point, on the side that keeps it inside the chart.
            let (x, anchor) = last.x > centre ? (last.x - 8, "end") : (last.x + 8, "start")
            svg += "<text class=\"line-label\" x=\"\(x.svg)\" y=\"\((last.y - 8).svg)\" text-anchor=\"\(anchor)\" "
                + "fill=\"\(series.color)\" font-style=\"italic\">\(label.xmlEscaped)</text>\n"
        }
        return svg + "</g>\n"
    }

    private func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, color: String, dash: String? = nil,
                      width: Double = 1, className: String? = nil) -> String {
        let dash = dash.map { " stroke-dasharray=\"\($0)\"" } ?? ""
        let className = className.map { " class=\"\($0)\"" } ?? ""
        return "<line\(className) x1=\"\(x1.svg)\" y1=\"\(y1.svg)\" x2=\"\(x2.svg)\" y2=\"\(y2.svg)\" "
            + "stroke=\"\(color)\" stroke-width=\"\(width.svg)\"\(dash)/>\n"
    }
}

extension Double {
    /// A coordinate in the SVG: a tenth of a pixel is finer than any screen shows.
    fileprivate var svg: String { fixed(1) }
}

extension String {
    /// The text with the characters XML reserves written as entities (safe in HTML too).
    public var xmlEscaped: String {
        reduce(into: "") { result, character in
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
