/// One output as the user named it: where it goes and the encoding it asks for.
public struct OutputRequest: Sendable {
    public var output: any OutputPlan
    public var rendition: RenditionRequest

    public init(_ output: any OutputPlan, rendition: RenditionRequest = RenditionRequest()) {
        self.output = output
        self.rendition = rendition
    }

    /// The codec it is encoded with.
    public func codec(_ encode: EncodingDefaults) -> VideoCodec { rendition.codec ?? encode.codec }

    /// The outputs among `destinations` that get an encoded stream or a ladder of them (not a
    /// window, not a viewer).
    public static func streams(of destinations: [Destination]) -> [OutputRequest] {
        destinations.compactMap { destination in
            let output = destination.output
            guard output is any StreamOutputPlan || output is any LadderOutputPlan else { return nil }
            return OutputRequest(output, rendition: destination.rendition)
        }
    }
}

/// A served output (the browser viewer) as the user named it, and the encoding it asks for.
public struct ViewerRequest: Sendable {
    public var options: any ServedOutputPlan
    public var rendition: RenditionRequest

    public init(options: any ServedOutputPlan, rendition: RenditionRequest = RenditionRequest()) {
        self.options = options
        self.rendition = rendition
    }

    /// The served outputs among `destinations`.
    public static func viewers(of destinations: [Destination]) -> [ViewerRequest] {
        destinations.compactMap { destination in
            (destination.output as? any ServedOutputPlan).map {
                ViewerRequest(options: $0, rendition: destination.rendition)
            }
        }
    }
}

/// The run's encoding flags (`--codec`, `--encoder`, `--bitrate`, `--crf`, `--keyint`,
/// `--preset`, `--size`…): what every output gets unless it asks for its own.
public struct EncodingDefaults: Sendable {
    public var codec: VideoCodec
    /// `--encoder`: the GPU's when it opens, software, or an encoder of `codec` by name.
    public var encoder: EncoderChoice
    /// `--vaapi-device`, or the device Podium found: a render node, or the captured X display.
    public var vaapiDevice: String?
    public var bitrate: Bitrate?
    /// `--crf`.
    public var quality: Double?
    public var keyframeInterval: Duration
    public var preset: String?
    /// `--size`, `--max-size` or `--scale`.
    public var scale: ScaleRequest
    public var scaleFilter: ScaleFilter

    public init(codec: VideoCodec = .h264, encoder: EncoderChoice = .auto, vaapiDevice: String? = nil,
                bitrate: Bitrate? = nil, quality: Double? = nil,
                keyframeInterval: Duration = .seconds(2), preset: String? = nil, scale: ScaleRequest = .source,
                scaleFilter: ScaleFilter = .box) {
        self.codec = codec
        self.encoder = encoder
        self.vaapiDevice = vaapiDevice
        self.bitrate = bitrate
        self.quality = quality
        self.keyframeInterval = keyframeInterval
        self.preset = preset
        self.scale = scale
        self.scaleFilter = scaleFilter
    }

    /// The encoder a request for `codec` gets: `--encoder` names an encoder of `--codec`; an
    /// output asking for another codec gets that codec's choice (`auto`, unless hardware or
    /// software was asked for every codec).
    public func encoder(for codec: VideoCodec) -> EncoderChoice {
        codec == self.codec || encoder.name == nil ? encoder : .auto
    }
}

/// Which encoders a run needs and what each feeds. Outputs that ask for the same encoding share
/// one encoder; an HLS playlist asks for one encoding per variant of its ladder.
public struct EncodingPlan: Sendable {
    /// One encoder.
    public struct Encoding: Sendable {
        public var settings: EncoderSettings
        /// Short and unique within the run: the size, with codec and bit rate where two share one.
        public var name: String
        /// Indices into `sinks`.
        public var sinks: [Int]
    }

    /// An HLS output: its master playlist and, for each variant, the encoding and media playlist.
    public struct Ladder: Sendable {
        public struct Entry: Sendable {
            public var variant: HLSOptions.Variant
            public var playlist: String
            /// Its media playlist's index in `sinks`.
            public var sink: Int
            /// The encoding that feeds it.
            public var encoding: Int
        }

        public var master: String
        public var options: HLSOptions
        public var variants: [Entry]
    }

    /// A browser viewer's server and the renditions it offers, largest first.
    public struct Viewers: Sendable {
        public var options: any ServedOutputPlan
        public var renditions: [(name: String, encoding: Int)]
    }

    public var encodings: [Encoding] = []
    public var viewers: [Viewers] = []
    /// Every output that gets packets: the outputs named with `--to`, an HLS playlist's variants.
    public var sinks: [any StreamOutputPlan] = []
    public var ladders: [Ladder] = []
    /// Things the user should know: a rung larger than the source that was dropped, say.
    public var notices: [String] = []
    /// The one keyframe schedule every encoder follows.
    public var keyframeInterval: Duration

    /// Plans the encoders for `outputs` of a `source` picture.
    /// - Throws: 64 for a request that cannot be met (a ladder with nothing left, encodings that
    ///   cannot share a conversion).
    public init(outputs: [OutputRequest], viewers: [ViewerRequest] = [], source: PixelSize, fps: FrameRate,
                encode: EncodingDefaults) throws(PodiumError) {
        keyframeInterval = encode.keyframeInterval
        // The encoding each output (or variant) asks for, in the order of `sinks`.
        var wanted: [EncoderSettings] = []
        for request in outputs {
            let output = request.output
            var settings = Self.settings(codec: request.codec(encode), size: source, fps: fps, encode: encode,
                                         bitrate: request.rendition.bitrate, preset: request.rendition.preset)
            if let interval = output.needs.keyframeInterval { keyframeInterval = min(keyframeInterval, interval) }
            guard let laddered = output as? any LadderOutputPlan else {
                guard let output = output as? any StreamOutputPlan else {
                    throw .software("\(output): an output that is neither a stream nor a ladder")
                }
                let scale = request.rendition.scale(or: encode.scale)
                let (size, rounded) = scale.outputSize(for: source)
                if rounded {
                    let exact = scale.exactSize(for: source)
                    notices.append(
                        "output size \(exact) rounded to \(size) for \(output): 4:2:0 video needs even sides")
                }
                settings.size = size
                if output.needs.followsReceiver {
                    settings.webRTC = true
                    if settings.bitrate == nil, let ceiling = output.bitrateCeiling(size: size, fps: fps) {
                        settings.rate = .bitrate(ceiling)
                        notices.append("\(output): its bit rate follows the network, up to "
                                       + "\(settings.rate) (a bit rate asked for sets another ceiling)")
                    }
                }
                wanted.append(settings)
                sinks.append(output)
                continue
            }
            if let key = request.rendition.fields
                .first(where: { !$0.hasPrefix("codec=") && !$0.hasPrefix("preset=") }) {
                throw .usage("?\(key.prefix { $0 != "=" })= does not apply to a playlist; choose its variants "
                             + "with ?ladder=", about: .output("\(output)"))
            }
            // The ladder starts from the size the run encodes (--size, --max-size or the captured size).
            let top = encode.scale.outputSize(for: source).size
            let planned = try Self.rungs(of: laddered.options, top: top, base: settings, about: .output("\(output)"))
            for rung in planned.dropped {
                notices.append("\(output): \(rung) is larger than the \(top) source; that variant is left out")
            }
            var ladder = Ladder(master: laddered.master, options: laddered.options, variants: [])
            for (variant, rung) in planned.rungs {
                let (variantOutput, playlist) = laddered.variant(variant)
                ladder.variants.append(Ladder.Entry(variant: variant, playlist: playlist, sink: sinks.count,
                                                    encoding: 0))
                wanted.append(rung)
                sinks.append(variantOutput)
            }
            ladders.append(ladder)
        }
        // One schedule for all: outputs that differ only in their keyframe interval share an encoder.
        var encodingOfSink: [Int] = []
        for settings in wanted {
            var settings = settings
            settings.keyframeInterval = keyframeInterval
            let index = encodings.firstIndex { $0.settings == settings } ?? encodings.count
            if index == encodings.count {
                encodings.append(Encoding(settings: settings, name: "", sinks: []))
            }
            encodings[index].sinks.append(encodingOfSink.count)
            encodingOfSink.append(index)
        }
        // A viewer's renditions share the encoders of the outputs that ask for the same encoding.
        for viewer in viewers {
            var offered = Viewers(options: viewer.options, renditions: [])
            for (name, rung) in try Self.renditions(of: viewer, source: source, fps: fps, encode: encode,
                                                    notices: &notices) {
                var settings = rung
                settings.keyframeInterval = keyframeInterval
                let index = encodings.firstIndex { $0.settings == settings } ?? encodings.count
                if index == encodings.count {
                    encodings.append(Encoding(settings: settings, name: "", sinks: []))
                }
                offered.renditions.append((name, index))
            }
            self.viewers.append(offered)
        }
        for ladder in ladders.indices {
            for variant in ladders[ladder].variants.indices {
                ladders[ladder].variants[variant].encoding = encodingOfSink[ladders[ladder].variants[variant].sink]
            }
        }
        try nameAndCheckEncodings()
    }

    /// The renditions a viewer's server offers, named as viewers choose them (`720p`): its
    /// `?ladder=`, or the one encoding its rendition request and the run's options make.
    private static func renditions(of viewer: ViewerRequest, source: PixelSize, fps: FrameRate,
                                   encode: EncodingDefaults, notices: inout [String]) throws(PodiumError)
        -> [(String, EncoderSettings)] {
        let base = settings(codec: viewer.rendition.codec ?? encode.codec, size: source, fps: fps, encode: encode,
                            bitrate: viewer.rendition.bitrate, preset: viewer.rendition.preset)
        let (size, _) = viewer.rendition.scale(or: encode.scale).outputSize(for: source)
        guard let ladder = viewer.options.ladder else {
            var single = base
            single.size = size
            return [("\(size.height)p", single)]
        }
        var options = HLSOptions()
        options.ladder = ladder
        let planned = try rungs(of: options, top: size, base: base, about: .output("\(viewer.options)"))
        for rung in planned.dropped {
            notices.append("\(viewer.options): \(rung) is larger than the \(size) source; that rendition is left out")
        }
        return planned.rungs.map { ($0.0.name, $0.1) }
    }

    /// What an output asks of its encoder, the run's options filling in what it leaves out.
    private static func settings(codec: VideoCodec, size: PixelSize, fps: FrameRate, encode: EncodingDefaults,
                                 bitrate: Bitrate? = nil, preset: String? = nil) -> EncoderSettings {
        var settings = EncoderSettings(
            codec: codec, encoder: encode.encoder(for: codec), vaapiDevice: encode.vaapiDevice, size: size,
            framesPerSecond: fps.framesPerSecond, bitrate: bitrate ?? encode.bitrate,
            keyframeInterval: encode.keyframeInterval, preset: preset ?? encode.preset,
            scaleFilter: encode.scaleFilter)
        // An output that asks for a bit rate gets it rather than the run's constant quality.
        if settings.bitrate == nil { settings.quality = encode.quality }
        return settings
    }

    /// The encoding of each variant of `options`' ladder over a `top` picture: `base` at the
    /// variant's size and rate.
    /// - Parameter subject: what a refusal is about.
    /// - Throws: 64 when no variant is left.
    private static func rungs(of options: HLSOptions, top: PixelSize, base: EncoderSettings,
                              about subject: PodiumError.Subject)
        throws(PodiumError) -> (rungs: [(HLSOptions.Variant, EncoderSettings)], dropped: [LadderRung]) {
        let planned: (variants: [HLSOptions.Variant], dropped: [LadderRung])
        do {
            planned = try options.variants(for: top, framesPerSecond: base.framesPerSecond)
        } catch {
            throw .usage(error.reason, about: subject)
        }
        let rungs = planned.variants.map { variant in
            var rung = base
            rung.size = variant.size
            rung.bitrate = variant.bitrate
            return (variant, rung)
        }
        return (rungs, planned.dropped)
    }

    /// Encoders that feed nothing, for `podium bench`: the run's encoding, or one per rung of
    /// `ladder` (sizes and bit rates as an HLS ladder has them).
    public init(bench source: PixelSize, fps: FrameRate, encode: EncodingDefaults, ladder: [LadderRung]?)
        throws(PodiumError) {
        keyframeInterval = encode.keyframeInterval
        let (top, _) = encode.scale.outputSize(for: source)
        let settings = Self.settings(codec: encode.codec, size: top, fps: fps, encode: encode)
        var options = HLSOptions()
        options.ladder = ladder
        let rungs = try ladder == nil ? [settings] : Self.rungs(of: options, top: top, base: settings,
                                                                about: .ladder).rungs.map(\.1)
        encodings = rungs.map { Encoding(settings: $0, name: "", sinks: []) }
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
                throw .usage("MJPEG's full-range pictures cannot share a conversion with other encodings; "
                             + "give every output the same encoding, or none of them mjpeg", about: .videoCodec(.mjpeg))
            }
        }
        // A variant's playlist may not be another output's (`--to d/live_720p.m3u8` beside `--to d/live.m3u8`).
        var playlists = Set(ladders.map(\.master))
        for path in sinks.flatMap(\.files) where !playlists.insert(path).inserted {
            throw .usage("two outputs write '\(path)'; give each playlist a name of its own", about: .outputs)
        }
    }

    /// The outputs of `encoding`, as shown, the viewers' servers it feeds last.
    public func outputs(ofEncoding index: Int) -> [String] {
        encodings[index].sinks.map { sinks[$0].description }
            + viewers.filter { $0.renditions.contains { $0.encoding == index } }.map(\.options.description)
    }
}
