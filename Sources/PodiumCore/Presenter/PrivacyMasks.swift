/// `--mask-window` and `--mask notifications`: the windows whose area is painted black in every
/// captured frame, before anything else sees it.
public struct PrivacyMasks: Sendable, Equatable, CustomStringConvertible {
    /// One `--mask-window`.
    public enum Rule: Sendable, Hashable, CustomStringConvertible {
        /// A part of the title, in any case.
        case title(String)
        /// `class:NAME`: the class or the instance name of `WM_CLASS`, in any case.
        case className(String)

        public init(parsing text: String) throws(OptionParseError) {
            let lowered = text.lowercased()
            if lowered.hasPrefix("class:") {
                let name = String(text.dropFirst("class:".count))
                guard !name.allSatisfy(\.isWhitespace) else {
                    throw OptionParseError("expected class:NAME with a class name, such as class:KeePassXC")
                }
                self = .className(name)
            } else if text.allSatisfy(\.isWhitespace) {
                throw OptionParseError("expected a part of a window's title, or class:NAME")
            } else {
                self = .title(text)
            }
        }

        public var description: String {
            switch self {
            case .title(let part): part
            case .className(let name): "class:\(name)"
            }
        }
    }

    public var windows: [Rule]
    /// Windows of type `_NET_WM_WINDOW_TYPE_NOTIFICATION` (pop-ups of a notification daemon).
    public var notifications: Bool

    public init(windows: [Rule] = [], notifications: Bool = false) {
        self.windows = windows
        self.notifications = notifications
    }

    public var isEmpty: Bool { windows.isEmpty && !notifications }

    /// Whether a window of this title, class and kind is masked.
    public func covers(title: String, instance: String, className: String, isNotification: Bool) -> Bool {
        if notifications && isNotification { return true }
        return windows.contains { rule in
            switch rule {
            case .title(let part): title.lowercased().contains(part.lowercased())
            case .className(let name):
                className.lowercased() == name.lowercased() || instance.lowercased() == name.lowercased()
            }
        }
    }

    /// `'Passwords', class:KeePassXC and notifications`.
    public var description: String {
        let named = windows.map { rule in
            if case .title = rule { return "'\(rule)'" }
            return "\(rule)"
        } + (notifications ? ["notifications"] : [])
        guard named.count > 1 else { return named.first ?? "nothing" }
        return named.dropLast().joined(separator: ", ") + " and " + named[named.count - 1]
    }

    /// Paints `rects` black in `frame`, which shows `region` (`rects` are in the same coordinates
    /// as `region`): in every row, or only in `rows` of the frame.
    /// - Returns: the frame's rows it painted.
    @discardableResult
    public static func paint(_ rects: [PixelRect], into frame: CapturedFrame, showing region: PixelRect,
                             rows: RowBands? = nil) -> RowBands {
        var painted = RowBands()
        let bounds = PixelRect(x: 0, y: 0, width: min(region.width, frame.size.width),
                               height: min(region.height, frame.size.height))
        let bands = rows ?? RowBands(0..<bounds.height)
        for rect in rects {
            let moved = PixelRect(x: rect.x - region.x, y: rect.y - region.y, size: rect.size)
            guard let visible = moved.intersection(bounds) else { continue }
            for index in 0..<bands.count {
                let band = bands[index].clamped(to: visible.y..<visible.maxY)
                var y = band.lowerBound
                while y < band.upperBound {
                    // Opaque black: alpha 255, as X leaves it in 24-bit pixels.
                    let line = (frame.buffer.bytes + y * frame.bytesPerRow + visible.x * 4)
                        .assumingMemoryBound(to: UInt32.self)
                    line.update(repeating: 0xFF00_0000, count: visible.width)
                    y += 1
                }
                painted.insert(band)
            }
        }
        return painted
    }
}
