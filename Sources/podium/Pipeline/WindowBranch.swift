import PodiumCore
import PodiumMedia
import PodiumX11
import Synchronization

/// Shows frames in a window: scaled BGRA to BGRA straight to the window's size (no encoder),
/// placed by the fit mode, with background bars around.
final class WindowBranch: FrameBranch {
    let slot = LatestSlot<CapturedFrame>()
    private let presenter: WindowPresenter
    private let fit: FitMode
    private let filter: ScaleFilter
    private let counters: PipelineCounters
    /// Remade when the picture or window size changes; touched only by the window thread.
    private nonisolated(unsafe) var scaler: PictureScaler?

    init(presenter: WindowPresenter, fit: FitMode, filter: ScaleFilter, counters: PipelineCounters) {
        self.presenter = presenter
        self.fit = fit
        self.filter = filter
        self.counters = counters
    }

    func countDrop() { counters.windowDropped.add(1, ordering: .relaxed) }

    func prepare(_ pipeline: Pipeline) async {}

    func run(_ pipeline: Pipeline) {
        let clock = pipeline.clock
        while let frame = slot.take() {
            defer { frame.buffer.release() }
            if presenter.pendingEvents().contains(.closed) {
                pipeline.fail(.unavailable("the window's display went away"))
                continue
            }
            let start = clock.now()
            do {
                try show(frame)
            } catch {
                pipeline.fail(error)
                continue
            }
            counters.present.record(nanoseconds: clock.now() - start)
            counters.presented.add(1, ordering: .relaxed)
        }
    }

    func finish(_ pipeline: Pipeline) async {}

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
