import Logging
import PodiumCore
import PodiumMedia
import PodiumX11
import Synchronization

/// Shows frames in a window: scaled BGRA to BGRA straight to the window's size (no encoder),
/// placed by the fit mode, with background bars around. Answers the presenter's keys: space
/// freezes the picture (capture pauses), `f` toggles fullscreen, `q` or Escape quits.
final class WindowBranch: FrameBranch {
    let slot = LatestSlot<CapturedFrame>()
    private let presenter: WindowPresenter
    private let fit: FitMode
    private let filter: ScaleFilter
    private let counters: PipelineCounters
    // Touched only by the window thread.
    /// Remade when the picture or window size changes.
    private nonisolated(unsafe) var scaler: PictureScaler?
    /// The frame on screen, kept to redraw after an expose, a resize or while frozen.
    private nonisolated(unsafe) var shown: CapturedFrame?

    init(presenter: WindowPresenter, fit: FitMode, filter: ScaleFilter, counters: PipelineCounters) {
        self.presenter = presenter
        self.fit = fit
        self.filter = filter
        self.counters = counters
    }

    func countDrop() { counters.windowDropped.add(1, ordering: .relaxed) }

    func prepare(_ pipeline: Pipeline) async {}

    func run(_ pipeline: Pipeline) {
        defer { shown?.buffer.release() }
        loop: while true {
            // Wake now and then with no frame, so keys work while the picture is frozen.
            switch slot.take(timeout: 0.1) {
            case .closed:
                break loop
            case .timedOut:
                handleEvents(pipeline)
            case .element(let frame):
                handleEvents(pipeline)
                if pipeline.paused.load(ordering: .relaxed) {
                    frame.buffer.release()
                    continue
                }
                shown?.buffer.release()
                shown = frame
                let start = pipeline.clock.now()
                do {
                    try show(frame)
                } catch {
                    pipeline.fail(error)
                    continue
                }
                counters.present.record(nanoseconds: pipeline.clock.now() - start)
                counters.presented.add(1, ordering: .relaxed)
            }
        }
    }

    func finish(_ pipeline: Pipeline) async {}

    private func handleEvents(_ pipeline: Pipeline) {
        var redraw = false
        for event in presenter.pendingEvents() {
            switch event {
            case .closed:
                pipeline.fail(.unavailable("the window's display went away"))
            case .exposed, .resized:
                redraw = true
            case .key("space"):
                let frozen = !pipeline.paused.load(ordering: .relaxed)
                pipeline.paused.store(frozen, ordering: .relaxed)
                pipeline.logger.notice("\(frozen ? "frozen: capture paused; space to resume" : "resumed")")
            case .key("f"):
                presenter.toggleFullscreen()
                redraw = true
            case .key("q"), .key("Escape"):
                pipeline.logger.notice("quit from the window")
                pipeline.stop()
            case .key:
                break
            }
        }
        if redraw, let shown { try? show(shown) }
    }

    private func show(_ frame: CapturedFrame) throws(PodiumError) {
        let placement = fit.placement(of: frame.size, in: presenter.size)
        // Whole rows at the window's own size go out of the capture buffer untouched.
        if placement.source.size == placement.destination.size, placement.source.width == frame.size.width, frame.bytesPerRow == frame.size.width * 4 {
            presenter.present(frame.buffer.bytes + placement.source.y * frame.bytesPerRow, bytesPerRow: frame.bytesPerRow, at: placement.destination)
            return
        }
        if scaler?.crop != placement.source.size || scaler?.output != placement.destination.size {
            scaler = try PictureScaler(crop: placement.source.size, output: placement.destination.size, filter: filter)
        }
        guard let scaler else { return }
        scaler.scale(frame, from: placement.source)
        presenter.present(scaler.pixels, bytesPerRow: scaler.bytesPerRow, at: placement.destination)
    }
}
