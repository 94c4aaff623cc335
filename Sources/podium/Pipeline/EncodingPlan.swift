import Foundation
import PodiumCore
import PodiumMedia

/// One output as the user named it: where it goes and the encoding it asks for.
struct OutputRequest: Sendable {
    var url: SinkURL
    var rendition: RenditionRequest

    /// The codec it is encoded with.
    func codec(_ encode: EncodeOptions) -> VideoCodec { rendition.codec ?? encode.codec }

    /// The outputs among `destinations` that get an encoded stream (all but a window).
    static func streams(of destinations: [Destination]) -> [OutputRequest] {
        destinations.compactMap { destination in
            destination.sinkURL.map { OutputRequest(url: $0, rendition: destination.rendition) }
        }
    }
}

/// Which encoders a run needs and what each feeds. Outputs that ask for the same encoding share
/// one encoder; an HLS playlist asks for one encoding per variant of its ladder.
struct EncodingPlan {
    /// One encoder.
    struct Encoding {
        var settings: EncoderSettings
        /// Short and unique within the run: the size, with codec and bit rate where two share one.
        var name: String
        /// Indices into `sinks`.
        var sinks: [Int]
        /// Whether one of its outputs keeps codec parameters out of band (MP4, Matroska, FLV, HLS).
        var globalHeader: Bool
    }

    /// An HLS output: its master playlist and, for each variant, the encoding and media playlist.
    struct Ladder {
        var master: String
        var options: HLSOptions
        var variants: [(variant: HLSOptions.Variant, encoding: Int, playlist: String)]
    }

    var encodings: [Encoding] = []
    /// Every output that gets packets: the outputs named with `--to`, an HLS playlist's variants.
    var sinks: [SinkURL] = []
    var ladders: [Ladder] = []
    /// Things the user should know: a rung larger than the source that was dropped, say.
    var notices: [String] = []
    /// The one keyframe schedule every encoder follows.
    var keyframeInterval: Duration

    /// Plans the encoders for `outputs` of a `source` picture.
    /// - Throws: 64 for a request that cannot be met (a ladder with nothing left, a codec an
    ///   output cannot carry, encodings that cannot share a conversion).
    init(outputs: [OutputRequest], source: PixelSize, fps: FrameRate, scale: ScaleOptions,
         encode: EncodeOptions) throws(PodiumError) {
        keyframeInterval = encode.keyint
        var wanted: [(settings: EncoderSettings, sink: SinkURL)] = []
        for output in outputs {
            let codec = output.codec(encode)
            var settings = EncoderSettings(
                codec: codec, encoderName: codec == encode.codec ? encode.encoder : nil, size: source,
                framesPerSecond: fps.framesPerSecond, bitrate: output.rendition.bitrate ?? encode.bitrate,
                keyframeInterval: encode.keyint, preset: output.rendition.preset ?? encode.preset,
                scaleFilter: scale.scaleFilter)
            guard case .hls(let master, let options) = output.url else {
                let request = output.rendition.scale(or: scale.request)
                let (size, rounded) = request.outputSize(for: source)
                if rounded {
                    let exact = request.exactSize(for: source)
                    notices.append(
                        "output size \(exact) rounded to \(size) for \(output.url): 4:2:0 video needs even sides")
                }
                settings.size = size
                wanted.append((settings, output.url))
                continue
            }
            if let key = output.rendition.fields.first(where: { !$0.hasPrefix("codec=") && !$0.hasPrefix("preset=") }) {
                throw .usage("--to '\(output.url)': ?\(key.prefix { $0 != "=" })= does not apply to a playlist; "
                             + "choose its variants with ?ladder=")
            }
            // The ladder starts from the size the run encodes (--size, --max-size or the captured size).
            let top = scale.request.outputSize(for: source).size
            let planned: (variants: [HLSOptions.Variant], dropped: [LadderRung])
            do {
                planned = try options.variants(for: top, framesPerSecond: fps.framesPerSecond)
            } catch {
                throw .usage("--to '\(output.url)': \(error.reason)")
            }
            for rung in planned.dropped {
                notices.append("\(output.url): \(rung) is larger than the \(top) source; that variant is left out")
            }
            keyframeInterval = min(keyframeInterval, options.segment)
            var ladder = Ladder(master: master, options: options, variants: [])
            var variantOptions = options
            variantOptions.isVariant = true
            let stem = master.dropLast(".m3u8".count)
            for variant in planned.variants {
                var rung = settings
                rung.size = variant.size
                rung.bitrate = variant.bitrate
                let playlist = "\(stem)_\(variant.name).m3u8"
                wanted.append((rung, .hls(path: playlist, options: variantOptions)))
                ladder.variants.append((variant, -1, playlist))
            }
            ladders.append(ladder)
        }
        // One schedule for all: outputs that differ only in their keyframe interval share an encoder.
        for (settings, sink) in wanted {
            var settings = settings
            settings.keyframeInterval = keyframeInterval
            sinks.append(sink)
            if let index = encodings.firstIndex(where: { $0.settings == settings }) {
                encodings[index].sinks.append(sinks.count - 1)
                encodings[index].globalHeader = encodings[index].globalHeader || sink.needsGlobalHeader
            } else {
                encodings.append(Encoding(settings: settings, name: "", sinks: [sinks.count - 1],
                                          globalHeader: sink.needsGlobalHeader))
            }
        }
        for index in ladders.indices {
            for variant in ladders[index].variants.indices {
                let playlist = ladders[index].variants[variant].playlist
                ladders[index].variants[variant].encoding = encodings.firstIndex { encoding in
                    encoding.sinks.contains {
                        if case .hls(playlist, _) = sinks[$0] { return true }
                        return false
                    }
                } ?? 0
            }
        }
        try nameAndCheckEncodings()
    }

    /// Encoders that feed nothing, for `podium bench`: the run's encoding, or one per rung of
    /// `ladder` (sizes and bit rates as an HLS ladder has them).
    init(bench source: PixelSize, fps: FrameRate, scale: ScaleOptions, encode: EncodeOptions,
         ladder: [LadderRung]?) throws(PodiumError) {
        keyframeInterval = encode.keyint
        let (top, _) = scale.request.outputSize(for: source)
        let settings = EncoderSettings(
            codec: encode.codec, encoderName: encode.encoder, size: top, framesPerSecond: fps.framesPerSecond,
            bitrate: encode.bitrate, keyframeInterval: encode.keyint, preset: encode.preset,
            scaleFilter: scale.scaleFilter)
        guard let ladder else {
            encodings = [Encoding(settings: settings, name: "", sinks: [], globalHeader: false)]
            try nameAndCheckEncodings()
            return
        }
        var options = HLSOptions()
        options.ladder = ladder
        let planned: [HLSOptions.Variant]
        do {
            planned = try options.variants(for: top, framesPerSecond: fps.framesPerSecond).variants
        } catch {
            throw .usage("--ladder: \(error.reason)")
        }
        encodings = planned.map { variant in
            var rung = settings
            rung.size = variant.size
            rung.bitrate = variant.bitrate
            return Encoding(settings: rung, name: "", sinks: [], globalHeader: false)
        }
        try nameAndCheckEncodings()
    }

    private mutating func nameAndCheckEncodings() throws(PodiumError) {
        let aligned = encodings.count > 1
        for index in encodings.indices {
            let settings = encodings[index].settings
            let sameSize = encodings.count { $0.settings.size == settings.size }
            encodings[index].name = "\(settings.size)"
                + (sameSize > 1 ? " \(settings.codec) \(settings.bitrate.map(\.description) ?? "cq")" : "")
            encodings[index].settings.alignedKeyframes = aligned
            if aligned && settings.codec == .mjpeg {
                throw .usage("--codec mjpeg: MJPEG's full-range pictures cannot share a conversion with other "
                             + "encodings; give every output the same encoding, or none of them mjpeg")
            }
        }
        // A variant's playlist may not be another output's (`--to d/live_720p.m3u8` beside `--to d/live.m3u8`).
        var playlists = Set(ladders.map(\.master))
        for case .hls(let path, _) in sinks where !playlists.insert(path).inserted {
            throw .usage("--to: two outputs write '\(path)'; give each playlist a name of its own")
        }
    }

    /// The outputs of `encoding`, as shown.
    func outputs(of encoding: Encoding) -> [String] { encoding.sinks.map { sinks[$0].description } }
}
