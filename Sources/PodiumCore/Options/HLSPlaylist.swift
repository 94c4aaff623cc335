/// The text of HLS playlists Podium writes or reads back: the master playlist that lists the
/// variants, and the segments a media playlist lists.
public enum HLSPlaylist {
    /// One `#EXT-X-STREAM-INF` entry.
    public struct Variant: Sendable, Equatable {
        /// The media playlist, relative to the master playlist.
        public var uri: String
        /// Peak and average bits per second of a segment.
        public var bandwidth: Int
        public var averageBandwidth: Int
        public var size: PixelSize
        public var framesPerSecond: Int
        /// RFC 6381, such as `avc1.64001f`; left out when unknown.
        public var codecs: String?

        public init(uri: String, bandwidth: Int, averageBandwidth: Int, size: PixelSize, framesPerSecond: Int,
                    codecs: String?) {
            self.uri = uri
            self.bandwidth = bandwidth
            self.averageBandwidth = averageBandwidth
            self.size = size
            self.framesPerSecond = framesPerSecond
            self.codecs = codecs
        }
    }

    /// A master playlist listing `variants`, largest first as given.
    public static func master(_ variants: [Variant]) -> String {
        var lines = ["#EXTM3U", "#EXT-X-INDEPENDENT-SEGMENTS"]
        for variant in variants {
            var attributes = ["BANDWIDTH=\(variant.bandwidth)", "AVERAGE-BANDWIDTH=\(variant.averageBandwidth)"]
            if let codecs = variant.codecs { attributes.append("CODECS=\"\(codecs)\"") }
            attributes += ["RESOLUTION=\(variant.size)", "FRAME-RATE=\(Double(variant.framesPerSecond).fixed(3))"]
            lines += ["#EXT-X-STREAM-INF:" + attributes.joined(separator: ","), variant.uri]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The segments a media playlist lists: each one's duration in seconds and URI, in order.
    public static func segments(of text: String) -> [(seconds: Double, uri: String)] {
        var segments: [(seconds: Double, uri: String)] = []
        var duration: Double?
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("#EXTINF:") {
                duration = Double(line.dropFirst("#EXTINF:".count).prefix { $0 != "," })
            } else if !line.hasPrefix("#"), !line.isEmpty, let seconds = duration {
                segments.append((seconds, String(line)))
                duration = nil
            }
        }
        return segments
    }

    /// Peak and average bits per second over `segments` of the given byte sizes; `nil` when
    /// there are none.
    public static func bandwidth(of segments: [(seconds: Double, bytes: Int)]) -> (peak: Int, average: Int)? {
        let timed = segments.filter { $0.seconds > 0 }
        guard let longest = timed.map(\.seconds).max() else { return nil }
        // A stub (the last segment of a run cut short) holds a keyframe in a fraction of the time:
        // its rate says nothing about what a player must sustain.
        let whole = timed.filter { $0.seconds >= longest / 2 }
        let peak = whole.map { Double($0.bytes * 8) / $0.seconds }.max() ?? 0
        let seconds = timed.reduce(0) { $0 + $1.seconds }
        let bits = timed.reduce(0) { $0 + $1.bytes * 8 }
        return (Int(peak.rounded()), Int((Double(bits) / seconds).rounded()))
    }
}
