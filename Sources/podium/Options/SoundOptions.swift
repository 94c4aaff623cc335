import ArgumentParser
import PodiumCore

/// The sound every output carries.
struct SoundOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Carry sound: 'desktop' (what the machine plays; the default when no value is given), 'mic' (the "
            + "default input), or a source's name on the sound server (PipeWire or PulseAudio).",
        valueName: "SOURCE"),
            transform: parsed(SoundRequest.init(parsing:)))
    var audio: [SoundRequest] = []

    @Option(help: ArgumentHelp("The sound codec: aac, or opus (not in FLV, RTMP or MPEG-TS HLS).", valueName: "CODEC"))
    var audioCodec: AudioCodec = .aac

    @Option(help: ArgumentHelp("The sound's bit rate, such as 96k or 192k (default: 128k).", valueName: "RATE"),
            transform: parsed(Bitrate.init(parsing:)))
    var audioBitrate = Bitrate(bitsPerSecond: 128_000)

    func validate() throws {
        if audio.count > 1 {
            throw ValidationError("--audio '\(audio[1])': one sound source at a time for now")
        }
        if !(16_000...512_000).contains(audioBitrate.bitsPerSecond) {
            throw ValidationError("--audio-bitrate '\(audioBitrate)' must be from 16k to 512k")
        }
    }

    /// The run's sound, or `nil` without `--audio`.
    var plan: SoundPlan? {
        audio.first.map { SoundPlan(source: $0, codec: audioCodec, bitrate: audioBitrate) }
    }
}
