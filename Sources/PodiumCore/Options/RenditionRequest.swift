/// What one output asks of its encoder, after its URL (`--to 'live.ts?size=1280x720&bitrate=2M'`).
/// What it leaves out comes from the run's `--size`, `--bitrate`, `--codec` and `--preset`;
/// outputs that end up asking for the same encoding share one encoder.
public struct RenditionRequest: Hashable, Sendable {
    /// `?size=WxH`: exactly this size.
    public var size: PixelSize?
    /// `?max-size=N`: the longest side at most N pixels, aspect kept.
    public var maxSize: Int?
    public var bitrate: Bitrate?
    public var codec: VideoCodec?
    public var preset: String?

    public init(size: PixelSize? = nil, maxSize: Int? = nil, bitrate: Bitrate? = nil, codec: VideoCodec? = nil,
                preset: String? = nil) {
        self.size = size
        self.maxSize = maxSize
        self.bitrate = bitrate
        self.codec = codec
        self.preset = preset
    }

    /// The query keys that choose an encoding; every kind of output takes them.
    public static let keys: Set<String> = ["size", "max-size", "bitrate", "codec", "preset"]

    public var isEmpty: Bool { self == RenditionRequest() }

    /// The size this output asks for, or `fallback` (the run's `--size`, `--max-size` or `--scale`).
    public func scale(or fallback: ScaleRequest) -> ScaleRequest {
        if let size { return .size(size) }
        if let maxSize { return .longestSide(maxSize) }
        return fallback
    }

    /// Splits the encoding fields off the query of an output's text: `b.mkv?size=640x360` gives
    /// `b.mkv` and a request for 640x360. The other fields stay for the output to read.
    public static func split(_ text: String) throws(OptionParseError) -> (output: String, rendition: RenditionRequest) {
        guard let mark = text.firstIndex(of: "?") else { return (text, RenditionRequest()) }
        var kept: [Substring] = []
        var request = RenditionRequest()
        for field in text[text.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: false) {
            let pair = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(pair[0])
            guard keys.contains(key) else {
                kept.append(field)
                continue
            }
            let value = pair.count == 2 ? String(pair[1]) : ""
            try request.read(key: key, value: value)
        }
        let output = String(text[..<mark]) + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
        if request.size != nil && request.maxSize != nil {
            throw OptionParseError("pass only one of ?size= and ?max-size=")
        }
        return (output, request)
    }

    private mutating func read(key: String, value: String) throws(OptionParseError) {
        func parsed<T>(_ current: T?, _ parse: () throws(OptionParseError) -> T) throws(OptionParseError) -> T {
            guard current == nil else { throw OptionParseError("?\(key) is given twice") }
            do {
                return try parse()
            } catch {
                throw OptionParseError("?\(key)=\(value): \(error.reason)")
            }
        }
        switch key {
        case "size": size = try parsed(size) { () throws(OptionParseError) in try PixelSize(parsing: value) }
        case "max-size":
            maxSize = try parsed(maxSize) { () throws(OptionParseError) in
                guard let side = Int(value), (2...PixelSize.maximumSide).contains(side) else {
                    throw OptionParseError("expected 2 to \(PixelSize.maximumSide) pixels")
                }
                return side
            }
        case "bitrate": bitrate = try parsed(bitrate) { () throws(OptionParseError) in try Bitrate(parsing: value) }
        case "codec":
            codec = try parsed(codec) { () throws(OptionParseError) in
                guard let codec = VideoCodec(rawValue: value) else {
                    let names = VideoCodec.allCases.map(\.rawValue).joined(separator: ", ")
                    throw OptionParseError("expected one of \(names)")
                }
                return codec
            }
        default:
            preset = try parsed(preset) { () throws(OptionParseError) in
                guard !value.isEmpty else { throw OptionParseError("expected a preset name") }
                return value
            }
        }
    }

    /// The fields as they follow the output in messages.
    public var fields: [String] {
        [size.map { "size=\($0)" }, maxSize.map { "max-size=\($0)" }, bitrate.map { "bitrate=\($0)" },
         codec.map { "codec=\($0.rawValue)" }, preset.map { "preset=\($0)" }].compactMap { $0 }
    }
}
