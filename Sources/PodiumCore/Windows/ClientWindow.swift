/// An application's top-level window as the window manager sees it (ICCCM's *client* window, not
/// the frame a reparenting manager puts around it): what `podium windows` lists and `--window`
/// picks from.
public struct ClientWindow: Hashable, Sendable, Codable {
    /// The X window id.
    public var id: UInt32
    /// `_NET_WM_NAME` (UTF-8), else `WM_NAME`; empty when it has neither.
    public var title: String
    /// `WM_CLASS`: the instance name (`xterm`) and the class (`XTerm`).
    public var instance: String
    public var className: String
    /// Where it is, in root window coordinates, and its size.
    public var rect: PixelRect
    /// Whether it is mapped (shown), so its pixels can be read.
    public var isMapped: Bool

    public init(id: UInt32, title: String, instance: String = "", className: String = "", rect: PixelRect,
                isMapped: Bool = true) {
        self.id = id
        self.title = title
        self.instance = instance
        self.className = className
        self.rect = rect
        self.isMapped = isMapped
    }

    /// The id as X tools print it: `0x1a00007`.
    public var hexID: String { "0x" + String(id, radix: 16) }

    /// `'Slides — Impress' (0x1a00007)`, for messages.
    public var label: String { "'\(title)' (\(hexID))" }

    private enum CodingKeys: String, CodingKey {
        case id, title, instance, className = "class", x, y, width, height, mapped
    }

    /// The id is written as X tools print it (`"0x1a00007"`), the rectangle as its four numbers.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(hexID, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(instance, forKey: .instance)
        try container.encode(className, forKey: .className)
        try container.encode(rect.x, forKey: .x)
        try container.encode(rect.y, forKey: .y)
        try container.encode(rect.width, forKey: .width)
        try container.encode(rect.height, forKey: .height)
        try container.encode(isMapped, forKey: .mapped)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let hex = try container.decode(String.self, forKey: .id)
        guard hex.hasPrefix("0x"), let id = UInt32(hex.dropFirst(2), radix: 16) else {
            throw DecodingError.dataCorruptedError(forKey: .id, in: container, debugDescription: "not a window id")
        }
        self.init(id: id, title: try container.decode(String.self, forKey: .title),
                  instance: try container.decode(String.self, forKey: .instance),
                  className: try container.decode(String.self, forKey: .className),
                  rect: PixelRect(x: try container.decode(Int.self, forKey: .x),
                                  y: try container.decode(Int.self, forKey: .y),
                                  width: try container.decode(Int.self, forKey: .width),
                                  height: try container.decode(Int.self, forKey: .height)),
                  isMapped: try container.decode(Bool.self, forKey: .mapped))
    }
}
