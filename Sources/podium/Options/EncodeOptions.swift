import ArgumentParser
import PodiumCore

/// How to compress.
struct EncodeOptions: ParsableArguments {
    @Option(help: "The video codec.")
    var codec: VideoCodec = .h264

    @Option(help: ArgumentHelp("A libavcodec encoder by name (default: the codec's first that opens here; see 'podium encoders').", valueName: "NAME"))
    var encoder: String?

    @Option(help: ArgumentHelp("Target bit rate, such as 800k or 6M (default: the encoder's constant quality).", valueName: "RATE"),
            transform: parsed(Bitrate.init(parsing:)))
    var bitrate: Bitrate?

    @Option(help: ArgumentHelp("Time between keyframes (default: 2s).", valueName: "DURATION"),
            transform: parsed(Duration.init(parsing:)))
    var keyint: Duration = .seconds(2)

    @Option(help: ArgumentHelp("The encoder's speed preset (default for x264 and x265: ultrafast).", valueName: "NAME"))
    var preset: String?
}
