/// What an HLS output (`--to out/live.m3u8?…`) takes after `?`: how long its segments are, how many
/// a live playlist keeps, the ladder of variants, and the segment format.
public struct HLSOptions: Hashable, Sendable {
    /// How the segments are stored.
    public enum SegmentType: String, Hashable, Sendable {
        case mpegts
        /// Fragmented MP4: an init file per variant and `.m4s` segments.
        case fmp4
    }

    /// `?segment=`: a segment's length, and the time between keyframes of every variant.
    public var segment: Duration = .seconds(1)
    /// `?window=`: segments a live media playlist lists; 0 keeps them all.
    public var window = 10
    /// `?ladder=`; `nil` follows the source (see `ladder(for:)`).
    public var ladder: [LadderRung]?
    public var segmentType = SegmentType.mpegts
    /// Set on a variant's media playlist, which is named by its path alone.
    public var isVariant = false

    public init() {}

    static let keys = "?segment=1s, ?window=N, ?ladder=1080p,720p,360p, ?segment-type=mpegts|fmp4"

    /// Reads the fields after `?` of a playlist's path.
    public init(query: String?) throws(OptionParseError) {
        for (key, value) in try URLText.fields(query, scheme: "an .m3u8", keys: Self.keys) {
            switch key {
            case "segment":
                let length: Duration
                do {
                    length = try Duration(parsing: value)
                } catch {
                    throw OptionParseError("?segment=\(value): \(error)")
                }
                guard length >= .milliseconds(100) && length <= .seconds(60) else {
                    throw OptionParseError("?segment=\(value): expected 100ms to 60s")
                }
                segment = length
            case "window":
                window = try URLText.number(value, key: key, in: 0...100_000, meaning: "segments (0 keeps all)")
            case "ladder":
                ladder = try LadderRung.list(parsing: value)
            case "segment-type":
                guard let type = SegmentType(rawValue: value) else {
                    throw OptionParseError("?segment-type=\(value): expected mpegts or fmp4")
                }
                segmentType = type
            default:
                throw OptionParseError("unknown option ?\(key) for an .m3u8 playlist; it takes \(Self.keys)")
            }
        }
    }

    /// The `?…` that describes non-default options.
    public var describedFields: [String?] {
        if isVariant { return [] }
        return [segment == .seconds(1) ? nil : "segment=\(segment.nanoseconds / 1_000_000)ms",
         window == 10 ? nil : "window=\(window)",
         ladder.map { "ladder=" + $0.map(\.description).joined(separator: ",") },
         segmentType == .mpegts ? nil : "segment-type=\(segmentType.rawValue)"]
    }

    /// The variants for a `source` picture: the ladder asked for, or the source, then 720p and
    /// 360p when smaller. Each has a bit rate: the one asked for, or 0.1 bit a pixel a frame.
    /// - Returns: the variants, largest first, and the rungs dropped for being larger than the source.
    /// - Throws: when no rung is left.
    public func variants(for source: PixelSize, framesPerSecond: Int) throws(OptionParseError)
        -> (variants: [Variant], dropped: [LadderRung]) {
        let even = source.roundedToEven
        let rungs = ladder ?? [LadderRung(size: even)] + [720, 360].filter { $0 < even.height }
            .map { LadderRung(height: $0) }
        var variants: [Variant] = []
        var dropped: [LadderRung] = []
        for rung in rungs {
            let size = rung.size(for: even)
            guard size.width <= even.width && size.height <= even.height else {
                dropped.append(rung)
                continue
            }
            guard !variants.contains(where: { $0.size == size }) else { continue }
            let bits = rung.bitrate ?? Self.defaultBitrate(size, framesPerSecond: framesPerSecond)
            variants.append(Variant(size: size, bitrate: bits, name: ""))
        }
        guard !variants.isEmpty else {
            throw OptionParseError(
                "every rung of the ladder is larger than the \(source) source; choose sizes up to \(even)")
        }
        variants.sort { $0.size.area > $1.size.area }
        // Named by height (720p), or by size where two share a height.
        for index in variants.indices {
            let height = variants[index].size.height
            let shared = variants.count(where: { $0.size.height == height }) > 1
            variants[index].name = shared ? "\(variants[index].size)" : "\(height)p"
        }
        return (variants, dropped)
    }

    /// 0.1 bit a pixel a frame (6.2M for 1080p30, 2.8M for 720p30, 700k for 360p30, close to
    /// Apple's authoring guidance), rounded to 100k.
    static func defaultBitrate(_ size: PixelSize, framesPerSecond: Int) -> Bitrate {
        let bits = Double(size.area * framesPerSecond) / 10
        return Bitrate(bitsPerSecond: max(100_000, Int((bits / 100_000).rounded()) * 100_000))
    }

    /// One variant of the ladder, as planned for the source.
    public struct Variant: Hashable, Sendable {
        public var size: PixelSize
        public var bitrate: Bitrate
        /// Its files' name part: `720p`, or `1440x1080` where two variants share a height.
        public var name: String
    }
}

/// A rung of `?ladder=`: `720p` (a height, the width following the source's aspect) or
/// `1280x720`, optionally with a bit rate (`720p@3M`).
public struct LadderRung: Hashable, Sendable, CustomStringConvertible {
    public var height: Int?
    public var exactSize: PixelSize?
    public var bitrate: Bitrate?

    public init(height: Int, bitrate: Bitrate? = nil) {
        self.height = height
        self.bitrate = bitrate
    }

    public init(size: PixelSize, bitrate: Bitrate? = nil) {
        exactSize = size
        self.bitrate = bitrate
    }

    /// Reads a comma-separated list of rungs, such as `1080p,720p@3M,640x360`.
    public static func list(parsing text: String) throws(OptionParseError) -> [LadderRung] {
        guard !text.isEmpty else { throw OptionParseError("?ladder= is empty; name sizes such as 1080p,720p,360p") }
        var rungs: [LadderRung] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
            var rung: LadderRung
            let sizeText = String(parts[0])
            if sizeText.hasSuffix("p"), let height = Int(sizeText.dropLast()) {
                guard (2...PixelSize.maximumSide).contains(height) else {
                    throw OptionParseError(
                        "?ladder=\(text): '\(item)' is not a height from 2 to \(PixelSize.maximumSide)")
                }
                rung = LadderRung(height: height)
            } else {
                do {
                    rung = LadderRung(size: try PixelSize(parsing: sizeText))
                } catch {
                    throw OptionParseError("?ladder=\(text): '\(item)' is not 720p or 1280x720 (\(error.reason))")
                }
            }
            if parts.count == 2 {
                do {
                    rung.bitrate = try Bitrate(parsing: String(parts[1]))
                } catch {
                    throw OptionParseError("?ladder=\(text): '\(item)': \(error.reason)")
                }
            }
            rungs.append(rung)
        }
        return rungs
    }

    /// Its size for a source of `source` (even sides).
    func size(for source: PixelSize) -> PixelSize {
        if let exactSize { return exactSize.roundedToEven }
        let height = height ?? source.height
        let width = Int((Double(source.width) * Double(height) / Double(source.height)).rounded())
        return PixelSize(width: max(2, width), height: height).roundedToEven
    }

    public var description: String {
        (exactSize.map(\.description) ?? "\(height ?? 0)p") + (bitrate.map { "@\($0)" } ?? "")
    }
}
