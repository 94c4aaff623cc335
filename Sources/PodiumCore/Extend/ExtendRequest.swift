/// What `podium extend` asks for: a monitor that exists only for the run, its size and rate, and
/// where it lies beside the others.
public struct ExtendRequest: Sendable, Equatable {
    /// The side of its neighbour the new monitor lies on.
    public enum Side: String, Sendable, CaseIterable {
        case rightOf = "right-of", leftOf = "left-of", above, below
    }

    public var size: PixelSize
    /// Its refresh rate, which is the capture's too.
    public var fps: Int
    public var side: Side
    /// The monitor it lies beside, by name; `nil` for the primary (or the first).
    public var neighbour: String?
    /// How many of its pixels the desktop draws for one of its layout's (2 for a tablet's HiDPI
    /// screen): windows on it look as large as on a monitor `scale` times smaller, and as sharp
    /// as its whole size. Wayland desktops have one per monitor; X11 has none.
    public var scale = 1.0

    /// The scales a monitor of Podium's may have.
    public static let scales = 1.0...4.0

    /// The room it takes in the desktop's layout: its size over its scale.
    public var layoutSize: PixelSize {
        PixelSize(width: Int((Double(size.width) / scale).rounded()),
                  height: Int((Double(size.height) / scale).rounded()))
    }

    /// The default: a 1080p monitor at 30 frames a second, right of the primary.
    public init(size: PixelSize = PixelSize(width: 1920, height: 1080), fps: Int = 30, side: Side = .rightOf,
                neighbour: String? = nil) {
        self.size = size
        self.fps = fps
        self.side = side
        self.neighbour = neighbour
    }

    /// Sizes a tablet or a screen likes, by name.
    public static let presets: [(name: String, size: PixelSize)] = [
        ("ipad", PixelSize(width: 2048, height: 1536)),
        ("1080p", PixelSize(width: 1920, height: 1080)),
        ("720p", PixelSize(width: 1280, height: 720)),
    ]

    /// The smallest and largest side a monitor of Podium's may have.
    public static let sides = 64...8192

    /// Reads `WxH[@FPS]` or a preset's name (`ipad`, `1080p`, `720p`), with an optional `@FPS`.
    public init(parsing text: String) throws(OptionParseError) {
        let parts = text.lowercased().split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2, let first = parts.first else {
            throw OptionParseError("expected WxH[@FPS] or \(Self.presetNames), such as 1920x1080@60")
        }
        let size: PixelSize
        if let preset = Self.presets.first(where: { $0.name == first }) {
            size = preset.size
        } else if first.contains("x") {
            size = try PixelSize(parsing: String(first))
        } else {
            throw OptionParseError("expected WxH[@FPS] or \(Self.presetNames), such as 1920x1080@60")
        }
        guard Self.sides.contains(size.width), Self.sides.contains(size.height) else {
            throw OptionParseError("each side must be \(Self.sides.lowerBound) to \(Self.sides.upperBound) pixels")
        }
        var fps = 30
        if parts.count == 2 {
            guard let rate = Int(parts[1]), FrameRate.range.contains(rate) else {
                throw OptionParseError("the rate after @ must be \(FrameRate.range.lowerBound) to "
                                       + "\(FrameRate.range.upperBound) frames a second")
            }
            fps = rate
        }
        self.init(size: size, fps: fps)
    }

    private static var presetNames: String { presets.map(\.name).joined(separator: ", ") }

    /// Where the new monitor goes beside `neighbour`, its top or left edge aligned with it, in the
    /// layout's pixels.
    public func place(beside neighbour: PixelRect) -> PixelRect {
        let size = layoutSize
        return switch side {
        case .rightOf: PixelRect(x: neighbour.maxX, y: neighbour.y, size: size)
        case .leftOf: PixelRect(x: neighbour.x - size.width, y: neighbour.y, size: size)
        case .above: PixelRect(x: neighbour.x, y: neighbour.y - size.height, size: size)
        case .below: PixelRect(x: neighbour.x, y: neighbour.maxY, size: size)
        }
    }
}

/// A monitor made for one run (a RandR monitor over a grown X screen, a sway headless output):
/// the desktop treats it as any other, Podium captures it, and takes it away when the run ends.
/// One left by a run that was killed is found by the next (`podium extend --clean`).
public protocol VirtualMonitor: AnyObject, Sendable {
    /// Its name, as `--monitor` (X11) or `--source wlr:NAME` (wlroots) takes it.
    var name: String { get }
    /// Its place in the desktop's layout.
    var rect: PixelRect { get }
    /// Where a run finds it: the display, and the source there (`monitor:PODIUM-1234` on `:1`,
    /// `wlr:HEADLESS-2` on `wayland-1`); `nil` where `source` is the source itself.
    var location: (display: String, source: SourceRequest)? { get }
    /// The source itself, where a request cannot name it whole (GNOME's, whose end its session
    /// says); `nil` where `location` names it.
    var source: (any SourcePlan)? { get }
    /// What plays a viewer's pointer and keys on it (`--allow-input`).
    /// - Throws: 69 when the desktop cannot take input from Podium.
    func openInput() throws(PodiumError) -> any InputInjector

    /// Takes it away, and gives the desktop back its size.
    /// - Returns: what became of it, to say (`took the monitor … away`).
    /// - Throws: 69 when the desktop would not (it is said; the next run tries again).
    func remove() throws(PodiumError) -> String
}

extension VirtualMonitor {
    public var location: (display: String, source: SourceRequest)? { nil }
    public var source: (any SourcePlan)? { nil }
}
