import Foundation
import Logging
import PodiumCore
import PodiumMedia
import PodiumWeb
import PodiumRun

/// The steps `stream`, `mirror` and `bench` share: checks before anything is opened, a look at
/// the display to capture, and the run of a plan with signals and statistics.
enum RunSetup {
    /// Everything about the outputs (`--to`, `--stats-json`) that can be checked without touching
    /// the outside world, so a bad one is refused before anything is opened. Looking up a host and
    /// a file's folder may block: on a thread of its own.
    static func check(_ outputs: [OutputRequest], viewers: [ViewerRequest], encode: EncodingDefaults,
                      sound: SoundPlan? = nil, run: RunOptions) async throws(PodiumError) {
        try await onOwnThread("podium-checks") { () throws(PodiumError) in
            try validateOutputs(outputs, viewers: viewers, encode: encode, sound: sound, run: run)
        }
    }

    private static func validateOutputs(_ outputs: [OutputRequest], viewers: [ViewerRequest] = [],
                                        encode: EncodingDefaults, sound: SoundPlan?, run: RunOptions)
        throws(PodiumError) {
        let plans = outputs.map(\.output) + viewers.map(\.options)
        let written = plans.flatMap(\.files).map { (flag: "--to", path: $0) }
            + (run.statsJSON.map { [(flag: "--stats-json", path: $0)] } ?? [])
        // Told apart by their secrets too: two stream keys on one server are two outputs.
        let named = plans.map { ([$0.description] + $0.secrets).joined(separator: "\u{0}") }
        if Set(named).count != named.count { throw .usage("--to names the same output twice") }
        for output in outputs {
            let codec = output.codec(encode)
            try output.output.validate(codec: codec)
            if let sound { try output.output.validate(sound: sound.codec) }
            // As the plan will choose it.
            let encoder = encode.encoder(for: codec)
            if let name = encoder.name { try EncoderCatalog.validate(name: name, codec: codec) }
            if let preset = output.rendition.preset ?? encode.preset {
                try EncoderCatalog.validate(preset: preset, encoder: encoder, codec: codec)
            }
        }
        try validateViewers(viewers, encode: encode)
        try OutputCheck.distinct(written)
        for output in plans { try NetworkAddress.resolve(output) }
        for output in plans { try output.check(overwrite: run.overwrite) }
        if let stats = run.statsJSON {
            try OutputCheck.creatable(stats, as: .statsFile(stats), overwrite: run.overwrite)
        }
    }

    /// The served outputs (the browser viewer), which check their codec, files and host as the
    /// others do: one server a port, and a preset the encoder takes.
    private static func validateViewers(_ viewers: [ViewerRequest], encode: EncodingDefaults) throws(PodiumError) {
        var ports: Set<Int> = []
        for viewer in viewers {
            let codec = viewer.rendition.codec ?? encode.codec
            try viewer.options.validate(codec: codec)
            if let port = (viewer.options as? ViewerOptions)?.port, !ports.insert(port).inserted {
                throw .usage("another viewer listens on port \(port) already", about: .output("\(viewer.options)"))
            }
            if let preset = viewer.rendition.preset ?? encode.preset {
                try EncoderCatalog.validate(preset: preset, encoder: encode.encoder(for: codec), codec: codec)
            }
        }
    }

    /// What to capture, looked up by the source kinds' resolvers (each on a thread of its own: a
    /// connect may block), and what the lookup says on the way.
    /// - Throws: 69 when the display cannot be opened, the monitor or window is not there or its
    ///   pixels cannot be read; 64 for a region outside the screen, or a name several windows match.
    /// - Parameters:
    ///   - outputs: where the pictures go, which may ask for an unchanged screen more often.
    ///   - filter: how two sources are scaled to their places.
    ///   - given: the source itself, found already (`podium extend`'s on GNOME); `nil` to look
    ///     up the one `source` names.
    static func capturePlan(_ source: CaptureSource, outputs: [any OutputPlan] = [], filter: ScaleFilter = .box,
                            given: (any SourcePlan)? = nil) async throws(PodiumError) -> CapturePlan {
        var lookup = SourceLookup(display: source.display)
        (lookup.monitor, lookup.region, lookup.drawsCursor) = (source.monitor, source.region, source.cursor)
        (lookup.sharedMemory, lookup.tracksDamage) = (!source.noSharedMemory, !source.constantFPS)
        (lookup.exitWhenGone, lookup.forgetsChoice) = (source.exitWhenGone, source.forgetChoice)
        (lookup.masks, lookup.showsRegion) = (source.presenter.masks, source.presenter.showsRegion)
        let invocation = Invocation.current
        lookup.events = { invocation.say($0.said) }
        lookup.stopRequested = { invocation.stopRequested }
        var plan = if let given {
            CapturePlan(given, idleFPS: source.idleRate(for: outputs))
        } else {
            try await SourceCatalog.capturePlan(source.allSources, lookup: lookup, layout: source.layout.chosen,
                                                filter: filter, idleFPS: source.idleRate(for: outputs),
                                                environment: invocation.environment)
        }
        (plan.highlight, plan.zoom) = (source.presenter.highlight, source.presenter.zoom)
        plan.penKeepsStrokes = source.presenter.penKeepsStrokes
        // The highlight and the zoom need a source that says where the pointer is.
        let tool = plan.highlight != nil ? "--highlight-pointer" : plan.zoom > 1 ? "--zoom" : nil
        if let tool, !plan.sources.contains(where: { $0.presenterToolsUnavailable == nil }),
           let reason = plan.sources.first?.presenterToolsUnavailable {
            throw .usage("\(tool) cannot be drawn: \(reason)")
        }
        return plan
    }

    static func logger(_ run: RunOptions) -> Logger {
        logger(run.level)
    }

    /// Podium's logger at `level`, with FFmpeg's messages bridged to lines of their own.
    static func logger(_ level: LogLevel) -> Logger {
        let ffmpeg = Logger(label: "ffmpeg") { _ in ConsoleLogHandler(logLevel: level.ffmpeg, source: "ffmpeg") }
        FFmpegLog.bridge(to: ffmpeg, level: level.ffmpeg)
        return Logger(label: "podium") { _ in ConsoleLogHandler(logLevel: level.podium) }
    }
}

extension SourceLookup.Event {
    /// As the terminal says it.
    var said: String {
        switch self {
        case .pickingWindow: "click the window to capture"
        case .waylandScreencopy: "a Wayland session: capturing its compositor's output, as --source wlr does"
        case .waylandPortal:
            "a Wayland session whose compositor does not copy its outputs: sharing through the desktop's portal, "
                + "as --source portal does"
        case .portalDialog: "asking the desktop what to share: choose in its dialog"
        case .notice(let text): text
        }
    }
}
