/// How a picture is placed in a window of another size (`--fit`).
public enum FitMode: String, CaseIterable, Hashable, Sendable, Codable {
    /// Whole picture, as large as fits, aspect kept; bars of the background around it.
    case contain
    /// Fills the window, aspect kept; the picture's edges are cropped.
    case cover
    /// Fills the window; the aspect ratio changes.
    case stretch
    /// One picture pixel per window pixel, centred; cropped when larger.
    case none
    /// The largest whole scale factor that fits (or the smallest whole divisor, for a larger
    /// picture), so pixels stay sharp; centred.
    case integer

    /// Where a picture goes in a window.
    public struct Placement: Hashable, Sendable {
        /// The part of the picture shown, in picture coordinates.
        public var source: PixelRect
        /// Where it is drawn, in window coordinates.
        public var destination: PixelRect
    }

    /// Places a `picture` in a `window`.
    public func placement(of picture: PixelSize, in window: PixelSize) -> Placement {
        let whole = PixelRect(x: 0, y: 0, size: picture)
        let (pw, ph, ww, wh) = (Double(picture.width), Double(picture.height),
                                Double(window.width), Double(window.height))
        switch self {
        case .stretch:
            return Placement(source: whole, destination: PixelRect(x: 0, y: 0, size: window))
        case .contain:
            let scale = min(ww / pw, wh / ph)
            return Placement(source: whole,
                             destination: Self.centered(PixelSize(width: Self.side(pw * scale),
                                                                  height: Self.side(ph * scale)), in: window))
        case .cover:
            let scale = max(ww / pw, wh / ph)
            let visible = PixelSize(width: min(picture.width, Self.side(ww / scale)),
                                    height: min(picture.height, Self.side(wh / scale)))
            return Placement(source: Self.centered(visible, in: picture),
                             destination: PixelRect(x: 0, y: 0, size: window))
        case .none:
            return Self.oneToOne(picture, in: window, factor: 1, divisor: 1)
        case .integer:
            let fit = min(ww / pw, wh / ph)
            if fit >= 1 { return Self.oneToOne(picture, in: window, factor: Int(fit), divisor: 1) }
            return Self.oneToOne(picture, in: window, factor: 1, divisor: Int((1 / fit).rounded(.up)))
        }
    }

    /// The picture scaled by `factor / divisor`, centred; cropped where it overflows.
    private static func oneToOne(_ picture: PixelSize, in window: PixelSize, factor: Int, divisor: Int) -> Placement {
        let scaled = PixelSize(width: max(1, picture.width * factor / divisor),
                               height: max(1, picture.height * factor / divisor))
        let shown = PixelSize(width: min(scaled.width, window.width), height: min(scaled.height, window.height))
        let sourceSize = PixelSize(width: max(1, shown.width * divisor / factor),
                                   height: max(1, shown.height * divisor / factor))
        return Placement(source: centered(sourceSize, in: picture), destination: centered(shown, in: window))
    }

    private static func centered(_ size: PixelSize, in area: PixelSize) -> PixelRect {
        PixelRect(x: (area.width - size.width) / 2, y: (area.height - size.height) / 2, size: size)
    }

    private static func side(_ value: Double) -> Int { max(1, Int(value.rounded())) }
}
