/// What an encoded stream is, as every output must know it before its first packet. Each encoder
/// makes one when it opens; outputs build their containers from it. Free of FFmpeg types.
public struct StreamDescription: Hashable, Sendable {
    /// Tells the streams of one run apart; packets carry it.
    public var id: Int
    public var codec: VideoCodec
    public var size: PixelSize
    /// Packet times count units of `1 / timeScale` seconds.
    public var timeScale: Int
    /// The target rate (frames come at variable times; this is the most there are).
    public var framesPerSecond: Int
    /// The parameter sets containers such as MP4 and Matroska keep out of band (SPS and PPS for
    /// H.264); empty when they travel in the stream.
    public var extradata: [UInt8]
    /// The encoder's profile and level numbers, as the codec's standard defines them; `nil` when unknown.
    public var profile: Int?
    public var level: Int?
    /// The target bit rate; `nil` for constant quality.
    public var bitrate: Bitrate?
    public var colors: ColorTags

    public init(
        id: Int, codec: VideoCodec, size: PixelSize, timeScale: Int, framesPerSecond: Int, extradata: [UInt8] = [],
        profile: Int? = nil, level: Int? = nil, bitrate: Bitrate? = nil, colors: ColorTags
    ) {
        self.id = id
        self.codec = codec
        self.size = size
        self.timeScale = timeScale
        self.framesPerSecond = framesPerSecond
        self.extradata = extradata
        self.profile = profile
        self.level = level
        self.bitrate = bitrate
        self.colors = colors
    }
}

/// How a stream's colours were made, so players do not guess (untagged HD is taken for BT.709).
/// Podium makes 8-bit 4:2:0 pictures of an sRGB screen with the BT.601 matrix, each chroma sample
/// the average of a 2x2 block; only the range differs (full for MJPEG).
public struct ColorTags: Hashable, Sendable {
    public enum Range: Hashable, Sendable { case limited, full }
    public enum Matrix: Hashable, Sendable { case bt601 }
    public enum Primaries: Hashable, Sendable { case bt709 }
    public enum Transfer: Hashable, Sendable { case sRGB }
    public enum ChromaLocation: Hashable, Sendable { case center }

    public var range: Range
    public var matrix = Matrix.bt601
    public var primaries = Primaries.bt709
    public var transfer = Transfer.sRGB
    public var chromaLocation = ChromaLocation.center

    public init(range: Range) {
        self.range = range
    }
}
