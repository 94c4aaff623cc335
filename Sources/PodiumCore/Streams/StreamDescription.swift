/// What an encoded stream is, as every output must know it before its first packet: a picture
/// or a sound, its codec and format. Each encoder makes one when it opens and registers it with
/// the run's `StreamHub`; outputs build their containers from it. Free of FFmpeg types.
public struct StreamDescription: Hashable, Sendable {
    /// Tells the streams of one run apart; packets carry it, programs list it.
    public var id: Int
    public var media: Media
    /// Packet times count units of `1 / timeScale` seconds.
    public var timeScale: Int
    /// The parameter sets containers such as MP4 and Matroska keep out of band (SPS and PPS for
    /// H.264, the AudioSpecificConfig for AAC); empty when they travel in the stream.
    public var extradata: [UInt8]
    /// The encoder's profile and level numbers, as the codec's standard defines them; `nil` when unknown.
    public var profile: Int?
    public var level: Int?
    /// The target bit rate; `nil` for constant quality.
    public var bitrate: Bitrate?

    /// What the stream carries.
    public enum Media: Hashable, Sendable {
        case video(Video)
        case audio(Audio)
    }

    /// A picture's format.
    public struct Video: Hashable, Sendable {
        public var codec: VideoCodec
        public var size: PixelSize
        /// The target rate (frames come at variable times, on its grid; this is the most there are).
        public var framesPerSecond: Int
        public var colors: ColorTags

        public init(codec: VideoCodec, size: PixelSize, framesPerSecond: Int, colors: ColorTags) {
            self.codec = codec
            self.size = size
            self.framesPerSecond = framesPerSecond
            self.colors = colors
        }
    }

    /// A sound's format.
    public struct Audio: Hashable, Sendable {
        public var codec: AudioCodec
        public var sampleRate: Int
        public var channels: Int
        /// Samples each packet holds (1024 for AAC, 960 for Opus at 48 kHz).
        public var samplesPerPacket: Int

        public init(codec: AudioCodec, sampleRate: Int, channels: Int, samplesPerPacket: Int) {
            self.codec = codec
            self.sampleRate = sampleRate
            self.channels = channels
            self.samplesPerPacket = samplesPerPacket
        }
    }

    public init(id: Int, media: Media, timeScale: Int, extradata: [UInt8] = [], profile: Int? = nil, level: Int? = nil,
                bitrate: Bitrate? = nil) {
        self.id = id
        self.media = media
        self.timeScale = timeScale
        self.extradata = extradata
        self.profile = profile
        self.level = level
        self.bitrate = bitrate
    }

    /// A picture stream.
    public init(id: Int, video: Video, timeScale: Int, extradata: [UInt8] = [], profile: Int? = nil, level: Int? = nil,
                bitrate: Bitrate? = nil) {
        self.init(id: id, media: .video(video), timeScale: timeScale, extradata: extradata, profile: profile,
                  level: level, bitrate: bitrate)
    }

    /// The picture's format, for a video stream.
    public var video: Video? {
        if case .video(let video) = media { return video }
        return nil
    }

    /// The sound's format, for an audio stream.
    public var audio: Audio? {
        if case .audio(let audio) = media { return audio }
        return nil
    }

    /// `duration` (nanoseconds) in units of this stream's time scale, rounded down.
    public func ticks(nanoseconds duration: UInt64) -> Int64 {
        // In full width: hours of nanoseconds times a time scale overflow 64 bits.
        let product = duration.multipliedFullWidth(by: UInt64(max(0, min(timeScale, 999_999_999))))
        return Int64(truncatingIfNeeded: UInt64(1_000_000_000).dividingFullWidth(product).quotient)
    }
}

/// The sound codecs Podium encodes.
public enum AudioCodec: String, CaseIterable, Hashable, Sendable, Codable {
    case aac, opus
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
