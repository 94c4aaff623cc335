import Logging
import PodiumCore
import PodiumMedia
import PodiumX11
import Synchronization

/// Shows frames in a window: scaled BGRA to BGRA straight to the window's size (no encoder),
/// placed by the fit mode, with background bars around. After the first picture, a frame
/// redraws and puts only the rows it changed (as the encoder converts only those). Follows its
/// target: while the display or monitor is absent it waits (and capture need not run for it),
/// opens the window when it appears, and closes it when it goes. Answers the presenter's keys: space freezes the picture
/// (capture pauses), `f` toggles fullscreen, `q` or Escape quits.
final class WindowBranch: FrameBranch {
    /// Where the window goes and how it looks.
    struct Spec: Sendable {
        var display: String
        var target: WindowTarget
        var windowed: Bool
        var pictureInPicture: PictureInPicture?
        var fit: FitMode
        var background: RGBColor
        var filter: ScaleFilter
        /// Names the source, such as `Podium · :0 eDP-1`.
        var title: String
        /// The captured size, for the picture-in-picture window's aspect.
        var pictureSize: PixelSize
    }

    let slot = LatestSlot<CapturedFrame>()
    private let spec: Spec
    private let counters: PipelineCounters
    private let showing = Atomic<Bool>(false)
    // Touched only by the window thread.
    private nonisolated(unsafe) var connection: XConnection?
    private nonisolated(unsafe) var presenter: WindowPresenter?
    private nonisolated(unsafe) var monitor: Monitor?
    /// Remade when the picture or window size changes.
    private nonisolated(unsafe) var scaler: PictureScaler?
    /// The frame on screen, kept to redraw after an expose, a resize or while frozen.
    private nonisolated(unsafe) var shown: CapturedFrame?
    /// The frame the canvas holds and where it was placed: the frame after it (`sequence + 1`)
    /// redraws only the rows it changed.
    private nonisolated(unsafe) var canvasHolds: (sequence: UInt64, placement: FitMode.Placement)?
    /// The reason last given for waiting, so it is said once.
    private nonisolated(unsafe) var waitingFor: String?
    private nonisolated(unsafe) var nextLook: UInt64 = 0
    private nonisolated(unsafe) var nextTitle: UInt64 = 0
    private nonisolated(unsafe) var presentedAtTitle = 0
    /// The windowed window's last measured rate, which its title shows.
    private nonisolated(unsafe) var rateShown: Double?
    /// What the window's title says now, to change it only when that changes.
    private nonisolated(unsafe) var titleShown: String?

    /// - Parameter connection: the target display, when it was open already.
    init(spec: Spec, connection: XConnection?, counters: PipelineCounters) {
        self.spec = spec
        self.connection = connection
        self.counters = counters
    }

    var wantsFrames: Bool { showing.load(ordering: .relaxed) }

    func countDrop() { counters.windowDropped.add(1, ordering: .relaxed) }

    func prepare(_ pipeline: Pipeline) async {}

    func run(_ pipeline: Pipeline) {
        defer {
            shown?.buffer.release()
            presenter = nil
        }
        loop: while true {
            let now = pipeline.clock.now()
            if now >= nextLook { look(pipeline, now: now) }
            // Wake now and then with no frame, so keys, hot-plug and titles work while nothing comes.
            switch slot.take(timeout: 0.1) {
            case .closed:
                break loop
            case .timedOut:
                handleEvents(pipeline)
            case .element(let frame):
                handleEvents(pipeline)
                guard presenter != nil, !pipeline.paused.load(ordering: .relaxed) else {
                    frame.buffer.release()
                    continue
                }
                shown?.buffer.release()
                shown = frame
                let start = pipeline.clock.now()
                show(frame, pipeline, changesOnly: true)
                counters.present.record(nanoseconds: pipeline.clock.now() - start)
                counters.presented.add(1, ordering: .relaxed)
            }
        }
    }

    func finish(_ pipeline: Pipeline) async {}

    // MARK: Following the target

    /// Opens the window when its target is there; checks that an open one's monitor is still
    /// there, as it was. Virtual monitors come and go without RandR notices, so this also runs
    /// every half second (one round trip).
    private func look(_ pipeline: Pipeline, now: UInt64) {
        nextLook = now + 500_000_000
        if connection?.isBroken ?? true {
            connection = try? XConnection(display: spec.display)
        }
        guard let connection else {
            return wait("display \(spec.display) is not up", awaiting: "display \(spec.display)", pipeline)
        }
        let layout = connection.layout()
        let search = spec.target.search(layout.monitors, screen: layout.size)
        var found: Monitor?
        switch search {
        case .found(let monitor): found = monitor
        case .coversCapture(let monitor) where spec.windowed: found = monitor
        default: break
        }
        if presenter != nil, found?.rect == monitor?.rect { return }
        close()
        guard let found else {
            let reason = spec.target.waitingReason(search, display: spec.display, monitors: layout.monitors)
            return wait(reason ?? "", awaiting: spec.target.awaited(on: spec.display), pipeline)
        }
        open(on: found, connection: connection, pipeline)
    }

    private func open(on target: Monitor, connection: XConnection, _ pipeline: Pipeline) {
        let mode: WindowPresenter.Mode
        if let pictureInPicture = spec.pictureInPicture {
            mode = .pictureInPicture(pictureInPicture.frame(on: target.rect, picture: shown?.size ?? spec.pictureSize))
        } else {
            mode = spec.windowed ? .windowed : .fullscreen
        }
        do {
            let title = currentTitle(pipeline)
            presenter = try WindowPresenter(connection: connection, monitor: target.rect, mode: mode, title: title,
                                            background: spec.background)
            titleShown = title
        } catch {
            return wait(error.message, awaiting: "a window on \(target.name)", pipeline)
        }
        monitor = target
        waitingFor = nil
        counters.windowAwaits.withLock { $0 = nil }
        showing.store(true, ordering: .relaxed)
        pipeline.logger.notice("showing on \(target.name) of \(spec.display) (\(presenter!.frame), fit \(spec.fit.rawValue))")
        if let shown, pipeline.paused.load(ordering: .relaxed) { show(shown, pipeline) }
    }

    private func close() {
        presenter = nil
        canvasHolds = nil
        monitor = nil
        scaler = nil
        showing.store(false, ordering: .relaxed)
    }

    /// - Parameter awaited: what it waits for, in a few words for the stats line (`HDMI-1`).
    private func wait(_ reason: String, awaiting awaited: String, _ pipeline: Pipeline) {
        guard waitingFor != reason else { return }
        waitingFor = reason
        counters.windowAwaits.withLock { $0 = awaited }
        pipeline.logger.notice("\(reason); waiting for it (Ctrl-C to stop)")
    }

    // MARK: Events and drawing

    private func handleEvents(_ pipeline: Pipeline) {
        guard let presenter else { return }
        var redraw = false
        for event in presenter.pendingEvents() {
            switch event {
            case .closed:
                pipeline.logger.notice("the window on \(spec.display) is gone")
                close()
                connection = nil
                nextLook = 0
                return
            case .layoutChanged:
                nextLook = 0
            case .exposed, .resized:
                redraw = true
            case .key("space"):
                let frozen = !pipeline.paused.load(ordering: .relaxed)
                pipeline.paused.store(frozen, ordering: .relaxed)
                pipeline.logger.notice("\(frozen ? "frozen: capture paused; space to resume" : "resumed")")
            case .key("f"):
                presenter.toggleFullscreen()
                redraw = true
            case .key("q"), .key("Escape"), .closeRequested:
                pipeline.logger.notice("quit from the window")
                pipeline.stop()
            case .key:
                break
            }
        }
        if redraw, let shown { show(shown, pipeline) }
        updateTitle(pipeline)
    }

    /// A windowed window's title carries the live presented rate, measured once a second; any
    /// window's title says "paused" while frozen, so the presenter can tell a frozen picture from
    /// a still screen (and a task bar shows it too). Checked at every wake, so it changes within
    /// a tenth of a second of the key, whichever window's key froze the pipeline.
    private func updateTitle(_ pipeline: Pipeline) {
        guard let presenter else { return }
        let now = pipeline.clock.now()
        if spec.windowed && now >= nextTitle {
            let presented = counters.presented.load(ordering: .relaxed)
            if nextTitle > 0 {
                let seconds = Double(now - nextTitle + 1_000_000_000) / 1e9
                rateShown = Double(presented - presentedAtTitle) / seconds
            }
            presentedAtTitle = presented
            nextTitle = now + 1_000_000_000
        }
        let title = currentTitle(pipeline)
        guard title != titleShown else { return }
        presenter.setTitle(title)
        titleShown = title
    }

    /// The source's name, then "paused" while frozen, else the live rate once one is measured.
    private func currentTitle(_ pipeline: Pipeline) -> String {
        if pipeline.paused.load(ordering: .relaxed) { return "\(spec.title) · paused" }
        guard let rateShown else { return spec.title }
        return "\(spec.title) · \(rateShown.fixed(1)) fps"
    }

    /// Draws `frame` in the window; with `changesOnly`, only the rows it changed since the frame
    /// the canvas holds, when that is the frame just before, placed the same way.
    private func show(_ frame: CapturedFrame, _ pipeline: Pipeline, changesOnly: Bool = false) {
        guard let presenter else { return }
        let placement = spec.fit.placement(of: frame.size, in: presenter.size)
        // One picture pixel per window pixel (the same sizes) makes a scaler that copies rows.
        if scaler?.crop != placement.source.size || scaler?.output != placement.destination.size {
            do {
                scaler = try PictureScaler(crop: placement.source.size, output: placement.destination.size, filter: spec.filter)
            } catch {
                return pipeline.fail(error)
            }
        }
        guard let scaler else { return }
        var rows: RowBands?
        if changesOnly, scaler.scalesRows, let changed = frame.changedRows, let held = canvasHolds,
           held.sequence &+ 1 == frame.sequence, held.placement == placement {
            rows = changed.scaled(from: placement.source.y..<placement.source.maxY, toHeight: placement.destination.height)
        }
        canvasHolds = (frame.sequence, placement)
        // An unchanged picture (an idle repeat) is on screen already.
        if rows?.isEmpty == true { return }
        let canvas = presenter.canvas(for: placement.destination.size)
        if let rows {
            scaler.scale(frame, from: placement.source, rows: rows, into: canvas)
        } else {
            scaler.scale(frame, from: placement.source, into: canvas)
        }
        presenter.present(at: placement.destination, rows: rows)
    }
}
