/// How two sources share one picture (`--layout`): side by side, the second floating over the
/// first, or one of them alone. Changed live by keys (`l`, `x`, `[` and `]`); a value, so a change
/// is a new layout and the compositor redraws the picture once.
public struct Layout: Hashable, Sendable, CustomStringConvertible {
    public enum Mode: String, CaseIterable, Hashable, Sendable {
        /// Side by side: the primary on the left, in a column `split` of the width.
        case beside
        /// The secondary in a corner over the primary, with a thin border.
        case over
        /// The primary alone.
        case primary
        /// The secondary alone.
        case secondary
    }

    /// How far `[` and `]` move the split, or change the size of the picture `over` the other.
    public static let step = 0.05
    /// The sizes `--over-size` may take, as a share of the picture's width.
    public static let overSizeRange = 0.1...0.5
    /// The splits `--split-min` and `--split-max` may set.
    public static let splitLimits = 0.1...0.9
    /// The border around the picture `over` the other, in pixels, and its colour.
    public static let borderWidth = 2
    public static let borderColor = RGBColor(red: 0xD0, green: 0xD0, blue: 0xD0)

    public var mode: Mode
    /// Whether the sources' roles are swapped (`x`): the second one given is the primary.
    public var swapped: Bool
    /// The primary's share of the width in `beside`, within `splitRange`.
    public private(set) var split: Double
    /// `--split-min`…`--split-max`.
    public let splitRange: ClosedRange<Double>
    public var corner: PictureInPicture.Corner
    /// The secondary's width in `over`, as a share of the picture's width, within `overSizeRange`.
    public private(set) var overSize: Double
    /// How each source is fitted into its part of the picture, by source (not by role).
    public let fits: [FitMode]
    public let background: RGBColor

    public init(mode: Mode = .beside, swapped: Bool = false, split: Double = 0.6,
                splitRange: ClosedRange<Double> = 0.2...0.8, corner: PictureInPicture.Corner = .topRight,
                overSize: Double = 0.25, fits: [FitMode] = [.contain, .contain],
                background: RGBColor = RGBColor(red: 0, green: 0, blue: 0)) {
        self.mode = mode
        self.swapped = swapped
        self.splitRange = splitRange
        self.split = min(max(split, splitRange.lowerBound), splitRange.upperBound)
        self.corner = corner
        self.overSize = min(max(overSize, Self.overSizeRange.lowerBound), Self.overSizeRange.upperBound)
        self.fits = fits
        self.background = background
    }

    /// `beside 0.60`, `over top-right`, `primary`, with `swapped` when the roles are.
    public var description: String {
        let detail = switch mode {
        case .beside: " " + String(Int((split * 100).rounded())) + "%"
        case .over: " " + corner.rawValue + " " + String(Int((overSize * 100).rounded())) + "%"
        case .primary, .secondary: ""
        }
        return mode.rawValue + detail + (swapped ? ", swapped" : "")
    }

    /// The next mode (`l`): beside, over, primary, secondary, and round again.
    public mutating func cycle() {
        let modes = Mode.allCases
        mode = modes[((modes.firstIndex(of: mode) ?? 0) + 1) % modes.count]
    }

    /// `]` (+1) and `[` (-1): moves the split of `beside` by `steps` of `step`, within
    /// `splitRange`, or makes the picture `over` the other larger or smaller, within
    /// `overSizeRange`. One source alone has nothing to resize.
    public mutating func resize(by steps: Int) {
        func stepped(_ value: Double, within range: ClosedRange<Double>) -> Double {
            let moved = ((value + Double(steps) * Self.step) * 100).rounded() / 100
            return min(max(moved, range.lowerBound), range.upperBound)
        }
        switch mode {
        case .beside: split = stepped(split, within: splitRange)
        case .over: overSize = stepped(overSize, within: Self.overSizeRange)
        case .primary, .secondary: break
        }
    }

    /// A part of the picture that shows one source.
    public struct Pane: Hashable, Sendable {
        /// Which source, by its order on the command line (0 or 1).
        public var source: Int
        /// The part of the picture the pane owns: filled with the background where the source's
        /// picture does not reach.
        public var area: PixelRect
        /// Where the source's picture goes, in the picture's coordinates.
        public var placement: FitMode.Placement
        /// Whether a border is drawn around `area`, outside the source's picture.
        public var bordered: Bool
    }

    /// Where each source goes on a `canvas`, bottom first.
    /// - Parameter sizes: the sources' current sizes, by source.
    public func panes(canvas: PixelSize, sizes: [PixelSize]) -> [Pane] {
        guard sizes.count == 2 else {
            return sizes.first.map { [pane(0, in: PixelRect(x: 0, y: 0, size: canvas), size: $0)] } ?? []
        }
        let (primary, secondary) = swapped ? (1, 0) : (0, 1)
        let whole = PixelRect(x: 0, y: 0, size: canvas)
        switch mode {
        case .primary:
            return [pane(primary, in: whole, size: sizes[primary])]
        case .secondary:
            return [pane(secondary, in: whole, size: sizes[secondary])]
        case .beside:
            // Even sides keep 4:2:0 chroma of either column from bleeding into the other.
            let left = min(max(2, Int((Double(canvas.width) * split / 2).rounded()) * 2), canvas.width - 2)
            return [pane(primary, in: PixelRect(x: 0, y: 0, width: left, height: canvas.height), size: sizes[primary]),
                    pane(secondary, in: PixelRect(x: left, y: 0, width: canvas.width - left, height: canvas.height),
                         size: sizes[secondary])]
        case .over:
            return [pane(primary, in: whole, size: sizes[primary]),
                    overPane(secondary, canvas: canvas, size: sizes[secondary])]
        }
    }

    private func pane(_ source: Int, in area: PixelRect, size: PixelSize) -> Pane {
        let placement = fit(source).placement(of: size, in: area.size)
        return Pane(source: source, area: area,
                    placement: FitMode.Placement(source: placement.source,
                                                 destination: area.offsetting(placement.destination)),
                    bordered: false)
    }

    /// The secondary's corner: `overSize` of the width, its own aspect, a margin from the edges,
    /// its border inside the margin.
    private func overPane(_ source: Int, canvas: PixelSize, size: PixelSize) -> Pane {
        let margin = PictureInPicture.margin(on: PixelRect(x: 0, y: 0, size: canvas))
        let border = Self.borderWidth
        let room = PixelSize(width: max(2, canvas.width - 2 * (margin + border)),
                             height: max(2, canvas.height - 2 * (margin + border)))
        let wanted = Int((Double(canvas.width) * overSize).rounded())
        let aspect = Double(size.width) / Double(max(1, size.height))
        var width = min(wanted, room.width)
        var height = Int((Double(width) / aspect).rounded())
        if height > room.height {
            height = room.height
            width = Int((Double(height) * aspect).rounded())
        }
        let inner = PixelSize(width: max(2, width & ~1), height: max(2, height & ~1))
        let x = corner == .topLeft || corner == .bottomLeft
            ? margin + border : canvas.width - margin - border - inner.width
        let y = corner == .topLeft || corner == .topRight
            ? margin + border : canvas.height - margin - border - inner.height
        var pane = pane(source, in: PixelRect(x: x, y: y, size: inner), size: size)
        pane.bordered = true
        return pane
    }

    private func fit(_ source: Int) -> FitMode {
        source < fits.count ? fits[source] : .contain
    }
}

extension Layout {
    /// Reads a share of the picture, `0.6` or `60%`, within `range`.
    public static func share(parsing text: String, within range: ClosedRange<Double>) throws(OptionParseError)
        -> Double {
        let percent = text.hasSuffix("%")
        guard let number = Double(percent ? String(text.dropLast()) : text), number.isFinite else {
            throw OptionParseError("expected a share such as 0.6 or 60%")
        }
        let share = percent ? number / 100 : number
        guard range.contains(share) else {
            let percents = "\(Int((range.lowerBound * 100).rounded()))% to \(Int((range.upperBound * 100).rounded()))%"
            throw OptionParseError("must be from \(range.lowerBound) to \(range.upperBound) (\(percents))")
        }
        return share
    }
}
