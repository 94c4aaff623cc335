public import Logging
public import Synchronization

/// A run's live state, and the verbs that change it as the run goes: the picture frozen or
/// blanked, the frame rate and the encoders' rate, the layout of two sources, the presenter's
/// tools and the recordings started by control. Keys, the control socket, the budget and the
/// mirror window all drive this one object; capture and the stages read its state.
///
/// Each change is done at once (the next slot, the next frame), said on one line, and kept for
/// `--stats-json`. A request the run cannot honour throws a usage error that names the setting
/// and the value, and changes nothing.
public final class RunControl: Sendable {
    /// Set while the presenter froze the picture: nothing is captured.
    public let paused = Atomic<Bool>(false)
    /// `Blank`'s raw value while the presenter blanked the screen, 0 while it shows.
    let blanked = Atomic<UInt8>(0)
    /// How two sources share the picture, changed by keys; `nil` with one source.
    public let layout: LayoutSwitch?
    /// The frame rate and the encoders' rate, changed while the run goes on.
    public let tuning: LiveTuning
    /// Recordings started and stopped while the run goes on; `nil` when nothing is encoded.
    public let recordings: (any RecordingControl)?
    /// The last minutes kept (`--replay`), for `save`; `nil` when none are.
    public let replay: (any ReplayControl)?
    /// The pointer highlight and the zoom, turned on and off by keys.
    public let presenter: PresenterTools
    /// The presenter's pen, turned on and off by keys; its strokes drawn by its input.
    public let pen: PenControl
    let clock: any PacingClock
    let logger: Logger
    /// Where keyframes are asked for.
    let hub: StreamHub
    /// Ends the run (`q`).
    let quit: @Sendable () -> Void
    /// Changes made since the statistics last took them; bounded (the oldest go first).
    private let changes = Mutex<[RunChange]>([])
    /// The keys held for the whole desktop, as `?` says them (`blank Ctrl+Alt+B, …`), once held.
    public let globalKeys = Mutex<String?>(nil)
    /// Rung at every change and when the run stops: wakes a capture resting on a still screen.
    public let changed = Doorbell()

    /// - Parameters:
    ///   - tuning: what may change as the run goes on.
    ///   - layout: the layout of two sources, for keys to change.
    ///   - recordings: what starts and stops recordings as the run goes on.
    ///   - replay: the last minutes kept, for `save`.
    ///   - presenter: the tools on the picture the grabber draws, which keys turn on and off.
    ///   - pen: the presenter's pen.
    ///   - quit: ends the run.
    public init(tuning: LiveTuning, layout: LayoutSwitch?, recordings: (any RecordingControl)?,
                replay: (any ReplayControl)? = nil, presenter: PresenterTools, pen: PenControl = PenControl(),
                hub: StreamHub, clock: any PacingClock, logger: Logger, quit: @escaping @Sendable () -> Void) {
        self.tuning = tuning
        self.layout = layout
        self.recordings = recordings
        self.replay = replay
        self.presenter = presenter
        self.pen = pen
        self.hub = hub
        self.clock = clock
        self.logger = logger
        self.quit = quit
    }

    /// Says `change` on one line and keeps it for the statistics, stamped with the time.
    @discardableResult
    func report(_ change: RunChange) -> RunChange {
        var change = change
        change.time = clock.now()
        logger.notice("\(change.line)")
        changes.withLock { changes in
            if changes.count >= 256 { changes.removeFirst() }
            changes.append(change)
        }
        changed.ring()
        return change
    }

    /// The changes made since the last call, oldest first.
    public func takeChanges() -> [RunChange] {
        changes.withLock { changes in
            defer { changes = [] }
            return changes
        }
    }
}

extension RunControl {
    /// Paces capture at `framesPerSecond` from the next slot.
    /// - Returns: the change, or `nil` when the rate was that already.
    @discardableResult
    public func setFrameRate(_ framesPerSecond: Int, by origin: ChangeOrigin, reason: String? = nil)
        throws(PodiumError) -> RunChange? {
        try check(frameRate: framesPerSecond)
        guard let before = tuning.setFrameRate(framesPerSecond, at: clock.now()) else { return nil }
        return report(RunChange(setting: "fps", from: "\(before)", to: "\(framesPerSecond)", by: origin,
                                reason: reason))
    }

    /// - Throws: a usage error when the run does not take `framesPerSecond`.
    func check(frameRate framesPerSecond: Int) throws(PodiumError) {
        let bounds = tuning.bounds
        guard bounds.contains(framesPerSecond) else {
            throw .usage("fps=\(framesPerSecond): this run's rates are \(bounds.lowerBound) to \(bounds.upperBound)")
        }
    }

    /// `+` and `-`: the next rate up or down the ladder, within the run's bounds.
    @discardableResult
    public func stepFrameRate(_ steps: Int, by origin: ChangeOrigin) -> RunChange? {
        guard let next = tuning.rate(steppedBy: steps) else {
            logger.notice("fps stays at \(tuning.frameRate): the \(steps > 0 ? "highest" : "lowest") this run takes")
            return nil
        }
        return try? setFrameRate(next, by: origin)
    }

    /// `<` and `>`: every encoder's bit rate a quarter lower or higher, or its constant quality
    /// (crf) two higher or lower.
    @discardableResult
    public func stepEncoderRate(_ steps: Int, by origin: ChangeOrigin) -> RunChange? {
        guard let planned = tuning.plannedRate else {
            logger.notice("nothing is encoded: no bit rate to change")
            return nil
        }
        guard let change = tuning.changeEncoding({ $0.stepRate(by: steps) }),
              planned.tuned(change.before) != planned.tuned(change.after) else {
            logger.notice("\(planned.tuned(tuning.encoding)) is as far as it goes")
            return nil
        }
        return reportRate(change, by: origin)
    }

    /// Sets the first encoder's bit rate; the others of a ladder keep their proportion to it.
    @discardableResult
    public func setBitrate(_ bitrate: Bitrate, by origin: ChangeOrigin) throws(PodiumError) -> RunChange? {
        let factor = try bitrateFactor(for: bitrate)
        guard let change = tuning.changeEncoding({ $0.bitrateFactor = factor }) else { return nil }
        return reportRate(change, by: origin)
    }

    /// The factor that makes the first encoder's planned bit rate `bitrate`.
    /// - Throws: a usage error when the run encodes at a constant quality, or `bitrate` is too
    ///   far from the plan's.
    func bitrateFactor(for bitrate: Bitrate) throws(PodiumError) -> Double {
        guard case .bitrate(let planned) = tuning.plannedRate else {
            throw .usage("bitrate=\(bitrate): " + (tuning.plannedRate.map {
                "this run encodes at a constant quality (\($0)); set quality=N instead"
            } ?? "this run encodes nothing"))
        }
        let factor = Double(bitrate.bitsPerSecond) / Double(planned.bitsPerSecond)
        guard LiveTuning.bitrateFactors.contains(factor) else {
            let low = planned.scaled(by: LiveTuning.bitrateFactors.lowerBound)
            let high = planned.scaled(by: LiveTuning.bitrateFactors.upperBound)
            throw .usage("bitrate=\(bitrate): this run takes \(low) to \(high)")
        }
        return factor
    }

    /// Sets every encoder's constant quality (crf, lower is better).
    @discardableResult
    public func setQuality(_ quality: Double, by origin: ChangeOrigin) throws(PodiumError) -> RunChange? {
        let shift = try qualityShift(for: quality)
        guard let change = tuning.changeEncoding({ $0.qualityShift = shift }) else { return nil }
        return reportRate(change, by: origin)
    }

    /// How far `quality` is from the plan's.
    /// - Throws: a usage error when the run encodes at a bit rate, or `quality` is out of range.
    func qualityShift(for quality: Double) throws(PodiumError) -> Double {
        guard case .quality(let planned) = tuning.plannedRate else {
            throw .usage("quality=\(quality.plain): " + (tuning.plannedRate.map {
                "this run encodes at a bit rate (\($0)); set bitrate=N instead"
            } ?? "this run encodes nothing"))
        }
        guard EncoderTuning.qualities.contains(quality) else {
            throw .usage("quality=\(quality.plain): expected a constant quality (crf) from 0 to 51, lower is better")
        }
        return quality - planned
    }

    private func reportRate(_ change: (before: EncoderTuning, after: EncoderTuning), by origin: ChangeOrigin)
        -> RunChange {
        let planned = tuning.plannedRate ?? .quality(EncoderRate.defaultQuality)
        let setting = if case .bitrate = planned { "bitrate" } else { "quality" }
        return report(RunChange(setting: setting, from: "\(planned.tuned(change.before))",
                                to: "\(planned.tuned(change.after))", by: origin))
    }

    /// Freezes the picture (capture pauses; outputs hold the last picture) or lets it go on.
    /// - Returns: the change, or `nil` when it was so already.
    @discardableResult
    public func setPaused(_ frozen: Bool, by origin: ChangeOrigin) -> RunChange? {
        guard paused.exchange(frozen, ordering: .relaxed) != frozen else { return nil }
        return report(RunChange(setting: "picture", from: frozen ? "live" : "frozen", to: frozen ? "frozen" : "live",
                                by: origin))
    }

    /// The colour the screen is blanked with, or `nil` while it shows.
    public var blankColour: Blank? { Blank(rawValue: blanked.load(ordering: .relaxed)) }

    /// Blanks the screen with `colour` (`nil`: shows it again): capture stops, and every output
    /// gets the colour from the next slot.
    /// - Returns: the change, or `nil` when it was so already.
    @discardableResult
    public func setBlank(_ colour: Blank?, by origin: ChangeOrigin) -> RunChange? {
        let before = Blank(rawValue: blanked.exchange(colour?.rawValue ?? 0, ordering: .relaxed))
        guard before != colour else { return nil }
        return report(RunChange(setting: "screen", from: before.map { "\($0)" } ?? "shown",
                                to: colour.map { "\($0)" } ?? "shown", by: origin))
    }

    /// Turns the pointer highlight on or off.
    @discardableResult
    /// Turns the pen on or off (`on` nil: the other way). - Returns: the change, if any.
    public func setPen(_ on: Bool?, by origin: ChangeOrigin) -> RunChange? {
        if let reason = pen.unavailable {
            logger.notice("the pen cannot be had: \(reason)")
            return nil
        }
        let wanted = on ?? !pen.isOn
        let before = pen.set(on: wanted)
        guard before != wanted else { return nil }
        return report(RunChange(setting: "pen", from: before ? "on" : "off", to: wanted ? "on" : "off", by: origin))
    }

    public func toggleHighlight(by origin: ChangeOrigin) -> RunChange {
        let on = presenter.toggleHighlight()
        return report(RunChange(setting: "highlight", from: on ? "off" : "on", to: on ? "on" : "off", by: origin))
    }

    /// Magnifies the picture `factor` times around the pointer (1: the whole area again).
    /// - Returns: the change, or `nil` when it was so already.
    @discardableResult
    public func setZoom(_ factor: Int, by origin: ChangeOrigin) -> RunChange? {
        let before = presenter.setZoom(factor)
        guard before != factor else { return nil }
        return report(RunChange(setting: "zoom", from: "\(before)×", to: "\(factor)×", by: origin))
    }

    /// Asks every video encoder for a keyframe at its next picture.
    @discardableResult
    public func requestKeyframe(by origin: ChangeOrigin) -> RunChange? {
        let videos = hub.streams.filter { $0.video != nil }
        guard !videos.isEmpty else {
            logger.notice("nothing is encoded: no keyframe to send")
            return nil
        }
        for stream in videos { hub.requestKeyframe(stream: stream.id) }
        return report(RunChange(setting: "keyframe", to: "requested", by: origin))
    }

    /// Changes the layout of two sources; nothing with one.
    @discardableResult
    func changeLayout(by origin: ChangeOrigin, _ body: (inout Layout) -> Void) -> RunChange? {
        guard let layout else { return nil }
        let before = layout.layout
        guard let changed = layout.change(body) else { return nil }
        return report(RunChange(setting: "layout", from: "\(before)", to: "\(changed)", by: origin))
    }
}
