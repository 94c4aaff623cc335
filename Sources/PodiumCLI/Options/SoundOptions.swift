import ArgumentParser
import PodiumCore

/// The sound every output carries.
struct SoundOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Carry sound: 'desktop' (what the machine plays; the default when no value is given), 'mic' (the "
            + "default input), a source's name on the sound server (PipeWire or PulseAudio), or 'app:NAME' (what "
            + "one application plays, through PipeWire). Give it again to mix several (up to 4); '?gain=-6dB' "
            + "after a source sets its level in the mix.",
        valueName: "SOURCE"),
            transform: parsed(SoundInput.init(parsing:)))
    var audio: [SoundInput] = []

    @Option(help: ArgumentHelp("The sound codec: aac, or opus (not in FLV, RTMP or MPEG-TS HLS). Default: aac; "
                               + "opus with a whip+https:// output.", valueName: "CODEC"))
    var audioCodec: AudioCodec?

    @Option(help: ArgumentHelp("The sound's bit rate, such as 96k or 192k (default: 128k).", valueName: "RATE"),
            transform: parsed(Bitrate.init(parsing:)))
    var audioBitrate = Bitrate(bitsPerSecond: 128_000)

    func validate() throws {
        let most = SoundPlan.maxInputs
        if audio.count > most {
            throw ValidationError("--audio '\(audio[most])': at most \(most) sources are mixed")
        }
        for (index, input) in audio.enumerated() where audio[..<index].contains(where: { $0.source == input.source }) {
            throw ValidationError("--audio '\(input)': the source '\(input.source)' is given twice")
        }
        if !(16_000...512_000).contains(audioBitrate.bitsPerSecond) {
            throw ValidationError("--audio-bitrate '\(audioBitrate)' must be from 16k to 512k")
        }
    }

    /// The run's sound for `destinations`, or `nil` without `--audio`. WebRTC carries Opus alone,
    /// so a run with an output that carries Opus alone (WHIP) and no `--audio-codec` encodes Opus.
    func plan(for destinations: [Destination] = []) -> SoundPlan? {
        let opusOnly = destinations.contains { $0.output.needs.soundCodec == .opus }
        let codec = audioCodec ?? (opusOnly ? .opus : .aac)
        guard !audio.isEmpty else { return nil }
        var plan = SoundPlan(inputs: audio, codec: codec, bitrate: audioBitrate)
        plan.servers = SoundServers(environment: Invocation.current.environment)
        return plan
    }
}
