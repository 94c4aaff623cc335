import Logging
public import PodiumCore
import Synchronization

/// Shows frames in a window: scaled BGRA to BGRA straight to the window's size (no encoder),
/// placed by the fit mode, with background bars around. After the first picture, a frame
/// redraws and puts only the rows it changed (as the encoder converts only those). Follows its
/// target: while the display or monitor is absent it waits (and capture need not run for it),
/// opens the window when it appears, and closes it when it goes. Answers the presenter's keys:
/// `KeyCommand`'s map (space freezes the picture, `l` changes the layout, `q` or Escape quits, …),
/// and `f` toggles fullscreen.
///
/// Everything it draws with (its X connection, the window, the scaler) lives on its thread, in
/// its `Worker`.
public final class WindowStage: FrameStage {
    /// Makes a scaler from a rectangle of one size to a picture of another, on the window's thread.
    public typealias MakeScaler = @Sendable (_ crop: PixelSize, _ output: PixelSize, ScaleFilter) throws(PodiumError)
        -> any FrameScaling

    public let slot = LatestSlot<CapturedFrame>()
    private let plan: WindowPlan
    private let counters: WindowCounters
    private let makeScaler: MakeScaler
    private let showing = Atomic<Bool>(false)

    public init(plan: WindowPlan, counters: WindowCounters, makeScaler: @escaping MakeScaler) {
        self.plan = plan
        self.counters = counters
        self.makeScaler = makeScaler
    }

    public var wantsFrames: Bool { showing.load(ordering: .relaxed) }

    public func countDrop() { counters.dropped.add(1, ordering: .relaxed) }

    /// The window's state, on its thread alone.
    public final class Worker {
        let stage: WindowStage
        var plan: WindowPlan { stage.plan }
        var counters: WindowCounters { stage.counters }
        let context: StageContext
        var connection: XConnection?
        var presenter: WindowPresenter?
        var monitor: Monitor?
        /// Remade when the picture or window size changes.
        var scaler: (any FrameScaling)?
        /// The frame on screen, kept to redraw after an expose, a resize or while frozen.
        var shown: CapturedFrame?
        /// The frame the canvas holds and where it was placed: the frame after it (`sequence + 1`)
        /// redraws only the rows it changed.
        var canvasHolds: (sequence: UInt64, placement: FitMode.Placement)?
        /// The reason last given for waiting, so it is said once.
        var waitingFor: String?
        var nextLook: UInt64 = 0
        var nextTitle: UInt64 = 0
        var presentedAtTitle = 0
        /// The windowed window's last measured rate, which its title shows.
        var rateShown: Double?
        /// What the window's title says now, to change it only when that changes.
        var titleShown: String?

        init(stage: WindowStage, context: StageContext, connection: XConnection?) {
            self.stage = stage
            self.context = context
            self.connection = connection
        }

        deinit {
            shown?.buffer.release()
        }
    }

    /// Connects to the target display when it is up; a display that is not up yet is waited for.
    public func open(in context: StageContext) throws(PodiumError) -> Worker {
        Worker(stage: self, context: context, connection: try? XConnection(display: plan.display))
    }

    public func run(_ worker: Worker, in context: StageContext) {
        defer { worker.presenter = nil }
        loop: while true {
            let now = context.clock.now()
            if now >= worker.nextLook { worker.look(now: now) }
            // Wake now and then with no frame, so keys, hot-plug and titles work while nothing comes.
            switch slot.take(timeout: 0.1) {
            case .closed:
                break loop
            case .timedOut:
                worker.handleEvents()
            case .element(let frame):
                worker.handleEvents()
                guard worker.presenter != nil, !context.control.paused.load(ordering: .relaxed) else {
                    frame.buffer.release()
                    continue
                }
                worker.shown?.buffer.release()
                worker.shown = frame
                let start = context.clock.now()
                worker.show(frame, changesOnly: true)
                counters.present.record(nanoseconds: context.clock.now() - start)
                counters.presented.add(1, ordering: .relaxed)
            }
        }
    }
}

extension WindowStage.Worker {
    // MARK: Following the target

    /// Opens the window when its target is there; checks that an open one's monitor is still
    /// there, as it was. Virtual monitors come and go without RandR notices, so this also runs
    /// every half second (one round trip).
    func look(now: UInt64) {
        nextLook = now + 500_000_000
        if connection?.isBroken ?? true {
            connection = try? XConnection(display: plan.display)
        }
        guard let connection else {
            return wait("display \(plan.display) is not up", awaiting: "display \(plan.display)")
        }
        let layout = connection.layout()
        let search = plan.target.search(layout.monitors, screen: layout.size)
        var found: Monitor?
        switch search {
        case .found(let monitor): found = monitor
        case .coversCapture(let monitor) where plan.windowed: found = monitor
        default: break
        }
        if presenter != nil, found?.rect == monitor?.rect { return }
        close()
        guard let found else {
            let reason = plan.target.waitingReason(search, display: plan.display, monitors: layout.monitors)
            return wait(reason ?? "", awaiting: plan.target.awaited(on: plan.display))
        }
        open(on: found, connection: connection)
    }

    private func open(on target: Monitor, connection: XConnection) {
        let mode: WindowPresenter.Mode
        if let pictureInPicture = plan.pictureInPicture {
            mode = .pictureInPicture(pictureInPicture.frame(on: target.rect, picture: shown?.size ?? plan.pictureSize))
        } else {
            mode = plan.windowed ? .windowed : .fullscreen
        }
        let opened: WindowPresenter
        do {
            let title = currentTitle()
            opened = try WindowPresenter(connection: connection, monitor: target.rect, mode: mode, title: title,
                                         background: plan.background)
            titleShown = title
        } catch {
            return wait(error.message, awaiting: "a window on \(target.name)")
        }
        presenter = opened
        monitor = target
        waitingFor = nil
        counters.awaits.withLock { $0 = nil }
        stage.showing.store(true, ordering: .relaxed)
        context.logger.notice(
            "showing on \(target.name) of \(plan.display) (\(opened.frame), fit \(plan.fit.rawValue))")
        if let shown, context.control.paused.load(ordering: .relaxed) { show(shown) }
    }

    private func close() {
        presenter = nil
        canvasHolds = nil
        monitor = nil
        scaler = nil
        stage.showing.store(false, ordering: .relaxed)
    }

    /// - Parameter awaited: what it waits for, in a few words for the stats line (`HDMI-1`).
    private func wait(_ reason: String, awaiting awaited: String) {
        guard waitingFor != reason else { return }
        waitingFor = reason
        counters.awaits.withLock { $0 = awaited }
        context.logger.notice("\(reason); waiting for it (Ctrl-C to stop)")
    }

    // MARK: Events and drawing

    func handleEvents() {
        guard let presenter else { return }
        var redraw = false
        for event in presenter.pendingEvents() {
            switch event {
            case .closed:
                context.logger.notice("the window on \(plan.display) is gone")
                close()
                connection = nil
                nextLook = 0
                return
            case .layoutChanged:
                nextLook = 0
            case .exposed, .resized:
                redraw = true
            case .key(let name):
                switch KeyCommand(key: name) {
                case .fullscreen:
                    presenter.toggleFullscreen()
                    redraw = true
                case let command?:
                    context.control.perform(command, from: .window)
                case nil:
                    break
                }
            case .closeRequested:
                context.logger.notice("quit from the window")
                context.stop()
            }
        }
        if redraw, let shown { show(shown) }
        updateTitle()
    }

    /// A windowed window's title carries the live presented rate, measured once a second; any
    /// window's title says "paused" while frozen, so the presenter can tell a frozen picture from
    /// a still screen (and a task bar shows it too). Checked at every wake, so it changes within
    /// a tenth of a second of the key, whichever window's key froze the run.
    private func updateTitle() {
        guard let presenter else { return }
        let now = context.clock.now()
        if plan.windowed && now >= nextTitle {
            let presented = counters.presented.load(ordering: .relaxed)
            if nextTitle > 0 {
                let seconds = Double(now - nextTitle + 1_000_000_000) / 1e9
                rateShown = Double(presented - presentedAtTitle) / seconds
            }
            presentedAtTitle = presented
            nextTitle = now + 1_000_000_000
        }
        let title = currentTitle()
        guard title != titleShown else { return }
        presenter.setTitle(title)
        titleShown = title
    }

    /// The source's name, then "paused" while frozen, else the live rate once one is measured.
    private func currentTitle() -> String {
        if context.control.paused.load(ordering: .relaxed) { return "\(plan.title) · paused" }
        guard let rateShown else { return plan.title }
        return "\(plan.title) · \(rateShown.fixed(1)) fps"
    }

    /// Draws `frame` in the window; with `changesOnly`, only the rows it changed since the frame
    /// the canvas holds, when that is the frame just before, placed the same way.
    func show(_ frame: CapturedFrame, changesOnly: Bool = false) {
        guard let presenter else { return }
        let placement = plan.fit.placement(of: frame.size, in: presenter.size)
        // One picture pixel per window pixel (the same sizes) makes a scaler that copies rows.
        if scaler?.crop != placement.source.size || scaler?.output != placement.destination.size {
            do {
                scaler = try stage.makeScaler(placement.source.size, placement.destination.size, plan.filter)
            } catch {
                return context.fail(error)
            }
        }
        guard let scaler else { return }
        var rows: RowBands?
        if changesOnly, scaler.scalesRows, let changed = frame.changedRows, let held = canvasHolds,
           held.sequence &+ 1 == frame.sequence, held.placement == placement {
            rows = changed.scaled(from: placement.source.y..<placement.source.maxY,
                                  toHeight: placement.destination.height)
        }
        canvasHolds = (frame.sequence, placement)
        // An unchanged picture (an idle repeat) is on screen already.
        if rows?.isEmpty == true { return }
        let canvas = presenter.canvas(for: placement.destination.size)
        if let rows {
            scaler.scale(frame, from: placement.source, rows: rows, into: canvas,
                         bytesPerRow: placement.destination.width * 4)
        } else {
            scaler.scale(frame, from: placement.source, into: canvas, bytesPerRow: placement.destination.width * 4)
        }
        presenter.present(at: placement.destination, rows: rows)
    }
}
