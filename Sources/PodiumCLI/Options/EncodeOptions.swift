import ArgumentParser
import Foundation
import PodiumCore
import PodiumMedia

/// How to compress.
struct EncodeOptions: ParsableArguments {
    @Option(help: "The video codec.")
    var codec: VideoCodec = .h264

    @Option(help: ArgumentHelp("auto: the GPU's (VAAPI) when it opens, else software; vaapi; software; or an "
                               + "encoder by name (default: auto; see 'podium encoders').",
                               valueName: "auto|vaapi|software|NAME"),
            transform: EncoderChoice.init(parsing:))
    var encoder: EncoderChoice = .auto

    @Option(name: .customLong("vaapi-device"),
            help: ArgumentHelp("The GPU for VAAPI: a render node or an X display (default: "
                               + "\(VAAPIProbe.renderNode) when there is one, else $DISPLAY).", valueName: "PATH|:N"))
    var vaapiDevice: String?

    @Option(name: [.customLong("bitrate"), .customShort("b"), .customLong("video-bit-rate")],
            help: ArgumentHelp("Target bit rate, such as 800k or 6M (default: constant quality, see --crf).",
                               valueName: "RATE"),
            transform: parsed(Bitrate.init(parsing:)))
    var bitrate: Bitrate?

    @Option(name: [.customLong("crf"), .customLong("quality")],
            help: ArgumentHelp("Constant quality, 0 to 63, lower is better (default: the encoder's own, 23 for x264).",
                               valueName: "N"))
    var quality: Double?

    @Option(help: ArgumentHelp("Time between keyframes (default: 2s).", valueName: "DURATION"),
            transform: parsed(Duration.init(parsing:)))
    var keyint: Duration = .seconds(2)

    @Option(help: ArgumentHelp("The encoder's speed preset (default for x264 and x265: ultrafast).", valueName: "NAME"))
    var preset: String?

    func validate() throws {
        if let quality, !(0...63).contains(quality) {
            throw ValidationError("--crf '\(quality.plain)' must be from 0 to 63")
        }
        if let vaapiDevice, vaapiDevice.isEmpty || vaapiDevice.contains("\0") {
            throw ValidationError("--vaapi-device '\(vaapiDevice)' is neither a render node's path nor an X display")
        }
        if quality != nil && bitrate != nil {
            throw ValidationError("--crf and --bitrate cannot be combined: one sets the quality, the other the rate")
        }
    }
}

extension EncodeOptions {
    /// What every output gets unless it asks for its own, with the picture sized by `scale`.
    /// - Parameter display: the X display captured, which the GPU is asked through when no
    ///   render node is there (an X display's driver is found by DRI, or `LIBVA_DRIVER_NAME`).
    func defaults(_ scale: ScaleOptions, display: String? = nil) -> EncodingDefaults {
        let xDisplay = display.flatMap { $0.contains(":") ? $0 : nil } ?? Invocation.current.environment["DISPLAY"]
        return EncodingDefaults(codec: codec, encoder: encoder,
                                vaapiDevice: vaapiDevice ?? VAAPIProbe.defaultDevice(display: xDisplay),
                                bitrate: bitrate, quality: quality, keyframeInterval: keyint, preset: preset,
                                scale: scale.request, scaleFilter: scale.scaleFilter)
    }

}
