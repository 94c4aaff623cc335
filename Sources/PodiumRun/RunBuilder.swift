public import Logging
public import PodiumCore
public import PodiumMedia
import PodiumSound
import PodiumWeb
import PodiumX11

/// Turns a `RunPlan` into a run of real parts: the X11 screen as the source, a window stage for
/// each window, the encode stage (libyuv and libavcodec) with an encoder per encoding, a muxer
/// output or a listener per output, and the served outputs' servers and guests. Opens nothing:
/// every part opens on its own thread as the run starts.
public enum RunBuilder {
    /// The encode stage of real parts.
    public typealias VideoEncodeStage = EncodeStage<PictureConverter, VideoEncoder>

    /// - Throws: 64 for a viewer's certificate or key that cannot be read, 73 when a self-signed
    ///   one cannot be kept.
    public static func build(_ plan: RunPlan, logger: Logger) throws(PodiumError) -> RunSession {
        let counters = plan.counters()
        let hub = StreamHub()
        let encoding = plan.encoding
        // One stream a encoding, in the plan's order.
        let streams = encoding.encodings.map { _ in hub.addStream() }
        let encodeStage = encodeStage(plan, streams: streams, counters: counters, logger: logger)
        let sound = plan.sound.flatMap { soundBranch($0, plan: plan, hub: hub, counters: counters) }

        // About two seconds of packets may wait for a slow output before it starts dropping.
        // Sound packets (about 50 a second) wait in the same queue as the pictures.
        let soundPackets = sound == nil ? 0 : SoundFormat.sampleRate / 960
        let capacity = max(8, 2 * (min(plan.frameRates.upperBound, 2 * plan.fps.framesPerSecond) + soundPackets))
        // A killed run loses at most this much of a recording.
        let flushInterval = min(.seconds(1), encoding.keyframeInterval)
        var outputs: [any RunOutput] = []
        for (encodingIndex, planned) in encoding.encodings.enumerated() {
            let program = Program(streams: [streams[encodingIndex]] + (sound.map { [$0.stage.stream] } ?? []))
            for sink in planned.sinks {
                outputs.append(encoding.sinks[sink].makeOutput(OutputContext(
                    program: program, counters: counters.sinks[sink], capacity: capacity,
                    flushInterval: flushInterval, logger: logger)))
            }
        }
        // Each served output's server (the browser viewer's) gets each of its renditions from a
        // guest subscribed to that stream and the sound.
        var servers: [any OutputServer] = []
        var guests: [any GuestSink] = []
        for viewers in encoding.viewers {
            let server = try viewers.options.makeServer(ServerContext(
                board: counters.viewers ?? ViewerBoard(), clock: MonotonicClock(), logger: logger))
            let renditions = viewers.renditions.map { (name: $0.name, stream: streams[$0.encoding]) }
            guests += server.guests(for: renditions, sound: sound?.stage.stream, hub: hub)
            servers.append(server)
        }

        var stages: [any FrameStage] = plan.windows.enumerated().map { index, window in
            WindowStage(plan: window, counters: counters.windows[index]) { crop, output, filter throws(PodiumError) in
                try PictureScaler(crop: crop, output: output, filter: filter)
            }
        }
        if let encodeStage { stages.append(encodeStage) }
        // Each stage holds up to two frames (one pending, one in use), a window one more on
        // screen, and the fan-out keeps the last one to hold a still picture to the end.
        let buffers = 3 + 2 * stages.count + plan.windows.count
        let capture = plan.capture
        let layouts = capture.composition.map { LayoutSwitch($0.layout) }
        // Sources that say where the pointer is have the tools drawn over the (composed) picture.
        let overlaid = capture.sources.filter { $0.presenterToolsUnavailable == nil }
        let presenter = PresenterTools(highlight: capture.highlight, zoom: capture.zoom,
                                       unavailable: overlaid.isEmpty
                                           ? capture.sources[0].presenterToolsUnavailable : nil)
        let pen = PenControl(keepsStrokes: capture.penKeepsStrokes,
                             unavailable: capture.sources.contains { $0.penUnavailable == nil }
                                ? nil : capture.sources[0].penUnavailable)
        let source = PacedCapture(idleFPS: capture.idleFPS) {
            () throws(PodiumError) -> any FrameGrabber in
            let grabber = try grabber(of: capture, layouts: layouts, bufferCount: buffers, logger: logger)
            guard !overlaid.isEmpty else { return grabber }
            return PresenterOverlay(source: grabber, presenter: presenter,
                                    drawsCursor: overlaid.contains(where: \.drawsCursor), bufferCount: buffers)
        }
        let run = Run(source: source, stages: stages,
                      sound: sound.map { Run.SoundBranch(sources: $0.sources, stage: $0.stage) },
                      outputs: OutputGroup(outputs: outputs, guests: guests),
                      hub: hub, counters: counters, limits: plan.limits, logger: logger, layout: layouts,
                      tuning: LiveTuning(frameRate: plan.fps, bounds: plan.frameRates, plannedRate: plan.plannedRate),
                      recordings: streams.first.map { video in
                          let program = Program(streams: [video] + (sound.map { [$0.stage.stream] } ?? []))
                          return RecordingDesk(hub: hub, program: program, capacity: capacity, logger: logger)
                      },
                      replay: outputs.lazy.compactMap { $0 as? any ReplayControl }.first,
                      presenter: presenter, pen: pen)
        return RunSession(run: run, plan: plan, streams: streams, encodeStage: encodeStage,
                          soundStage: sound?.stage, servers: servers, logger: logger)
    }

    /// Opens what grabs the run's pictures, on the capture thread: its source's grabber, or two
    /// sources' composed.
    /// - Parameter bufferCount: composed frames that may be in flight at once across every stage.
    private static func grabber(of capture: CapturePlan, layouts: LayoutSwitch?, bufferCount: Int,
                                logger: Logger) throws(PodiumError) -> any FrameGrabber {
        guard let composition = capture.composition, let layouts, capture.sources.count > 1 else {
            return try capture.sources[0].openGrabber(bufferCount: bufferCount, logger: logger)
        }
        // Each source's frames are copied into the composed picture (one kept, one being grabbed, one
        // spare), or handed through as they are when one fills the picture alone: then as many are in
        // flight as of a source captured alone.
        var sources: [any FrameGrabber] = []
        for source in capture.sources {
            let handsThrough = source.size == composition.canvas
            sources.append(try source.openGrabber(bufferCount: handsThrough ? bufferCount + 1 : 3, logger: logger))
        }
        let filter = composition.filter
        return ComposedCapture(sources: sources, sizes: capture.sources.map(\.size), canvas: composition.canvas,
                               layouts: layouts, bufferCount: bufferCount) { crop, output throws(PodiumError) in
            try PictureScaler(crop: crop, output: output, filter: filter)
        }
    }

    /// The sound's sources and the stage that mixes and encodes them, once for every output;
    /// `nil` when nothing is encoded.
    private static func soundBranch(_ sound: SoundPlan, plan: RunPlan, hub: StreamHub, counters: RunCounters)
        -> (sources: [any SoundSource], stage: SoundStage)? {
        guard let soundCounters = counters.sound, !plan.encoding.encodings.isEmpty else { return nil }
        // Browsers' decoders take the codec's configuration apart from the packets, as MP4 does.
        let globalHeader = plan.encoding.sinks.contains(where: \.needs.globalHeader)
            || plan.encoding.viewers.contains(where: \.options.needs.globalHeader)
        let stage = SoundStage(stream: hub.addStream(), counters: soundCounters, gains: sound.inputs.map(\.factor),
                               frameInterval: plan.fps.intervalNanoseconds, placer: SoundPlacer.init) {
            stream throws(PodiumError) in
            try AudioEncoder(codec: sound.codec, bitrate: sound.bitrate, globalHeader: globalHeader, streamID: stream)
        }
        return (sound.inputs.map { PipeWireSoundSource.choose(for: $0, servers: sound.servers) }, stage)
    }

    /// The encode stage for the plan's encodings, or `nil` when nothing is encoded (a window alone).
    private static func encodeStage(_ plan: RunPlan, streams: [Int], counters: RunCounters, logger: Logger)
        -> VideoEncodeStage? {
        let encodings = plan.encoding.encodings
        guard !encodings.isEmpty else { return nil }
        let source = plan.capture.size
        let sizes = PictureConverter.levels(of: encodings.map(\.settings.size))
        // MJPEG wants full-range pictures; the plan lets it share no conversion with another encoding.
        let fullRange = encodings.contains { $0.settings.codec == .mjpeg }
        let filter = encodings[0].settings.scaleFilter
        let count = PictureConverter.pictureCount(encoders: encodings.count)
        let renditions = encodings.enumerated().map { index, planned in
            // MP4, Matroska, FLV and HLS keep codec parameters out of band.
            let globalHeader = planned.sinks.contains { plan.encoding.sinks[$0].needs.globalHeader }
            let settings = planned.settings
            return VideoEncodeStage.Rendition(
                stream: streams[index], level: sizes.firstIndex(of: settings.size) ?? 0,
                counters: counters.renditions[index]
            ) { stream throws(PodiumError) in
                try VideoEncoder(settings: settings, plannedPicture: sizes[0], globalHeader: globalHeader,
                                 streamID: stream)
            }
        }
        return VideoEncodeStage(
            makePictures: { () throws(PodiumError) in
                try PictureConverter(source: source, sizes: sizes, count: count, filter: filter, fullRange: fullRange)
            },
            renditions: renditions, keyframeInterval: plan.encoding.keyframeInterval, counters: counters.encode)
    }
}
