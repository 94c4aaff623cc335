/// What the user asked of the encoder.
public struct EncoderSettings: Sendable, Equatable {
    public var codec: VideoCodec
    /// `--encoder`: the GPU's when it opens (the default), software, or an encoder by name.
    public var encoder: EncoderChoice
    /// `--vaapi-device`: the render node or X display a VAAPI encoder runs on.
    public var vaapiDevice: String?
    public var size: PixelSize
    public var framesPerSecond: Int
    /// `nil` keeps the encoder's own quality-based rate control.
    public var bitrate: Bitrate?
    /// `--crf`: the constant quality asked for; `nil` keeps the encoder's own default.
    public var quality: Double?
    /// Its rate control: a bit rate, or a constant quality (x264's own when neither was given).
    public var rate: EncoderRate {
        get { bitrate.map(EncoderRate.bitrate) ?? .quality(quality ?? EncoderRate.defaultQuality) }
        set {
            switch newValue {
            case .bitrate(let value): (bitrate, quality) = (value, nil)
            case .quality(let value): (bitrate, quality) = (nil, value)
            }
        }
    }
    public var keyframeInterval: Duration
    /// `--preset`; `nil` uses the low-latency default of the encoder.
    public var preset: String?
    public var scaleFilter: ScaleFilter
    /// Keyframes only when asked (the run's one schedule for every rendition), none of the
    /// encoder's own choosing.
    public var alignedKeyframes = false
    /// For a WebRTC receiver: H.264's constrained baseline profile, which every browser decodes, and
    /// an encoder of its own, whose bit rate follows the receiver's feedback (see `NetworkRate`).
    public var webRTC = false
    /// The rate control's buffer (VBV), in seconds of the bit rate. A second keeps a network link's
    /// rate steady; a WebRTC encoder's third of one lets it follow its receiver within a second
    /// (with a second's, x264 took two to come down from 2.7 to 1.8 Mbit/s and kept a 1 Mbit/s
    /// link losing meanwhile).
    public var rateBufferSeconds: Double { webRTC ? 1.0 / 3 : 1 }

    public init(
        codec: VideoCodec = .h264, encoder: EncoderChoice = .auto, vaapiDevice: String? = nil, size: PixelSize,
        framesPerSecond: Int,
        bitrate: Bitrate? = nil, keyframeInterval: Duration = .seconds(2), preset: String? = nil,
        scaleFilter: ScaleFilter = .box
    ) {
        self.codec = codec
        self.encoder = encoder
        self.vaapiDevice = vaapiDevice
        self.size = size
        self.framesPerSecond = framesPerSecond
        self.bitrate = bitrate
        self.keyframeInterval = keyframeInterval
        self.preset = preset
        self.scaleFilter = scaleFilter
    }

    /// Keyframe distance in frames at the target rate, at least 1.
    public var gopSize: Int {
        max(1, Int((keyframeInterval.seconds * Double(framesPerSecond)).rounded()))
    }
}
