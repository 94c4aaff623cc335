import Logging
import Synchronization

/// The changes a running run takes, from keys, the control socket or the budget: each is done at
/// once (the next slot, the next frame), said on one line, and kept for `--stats-json`. A request
/// the run cannot honour throws a usage error that names the setting and the value, and changes
/// nothing.
extension Run {
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
