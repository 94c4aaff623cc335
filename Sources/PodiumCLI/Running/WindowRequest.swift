import PodiumCore
import PodiumX11

/// A window as the user asked for it: by `podium mirror`'s flags, or by `--to window[:MONITOR]`.
struct WindowRequest: Sendable {
    var monitor: MonitorSelector?
    /// Another X display or screen; `nil` is the captured one.
    var display: String?
    var windowed = false
    var pictureInPicture: PictureInPicture?
    var fit = FitMode.contain
    var background = RGBColor(red: 0, green: 0, blue: 0)
    /// How messages name the monitor option: `--on 'HDMI-1'`, or `--to 'window:HDMI-1'`.
    var naming: @Sendable (String) -> String = { "--on '\($0)'" }

    /// The window's plan: the target display is looked at on a thread of its own (another
    /// display that is not up yet is waited for as the run goes), and a target that cannot be is
    /// refused.
    /// - Returns: the plan and the target display's name.
    func plan(capturing capture: CapturePlan, filter: ScaleFilter) async throws(PodiumError) -> (WindowPlan, String) {
        let request = self
        return try await onOwnThread("podium-display") { () throws(PodiumError) in
            try request.plan(capturing: capture, filter: filter)
        }
    }

    private func plan(capturing capture: CapturePlan, filter: ScaleFilter) throws(PodiumError)
        -> (WindowPlan, String) {
        let source = capture.sources[0]
        let targetDisplay = display ?? source.display
        // The areas captured on the target display's screen, which the window must not cover. A
        // window's own pixels are captured whatever covers it: nothing to avoid.
        let avoided = capture.sources.compactMap { source -> PixelRect? in
            guard let screen = source as? ScreenPlan, screen.display == targetDisplay else { return nil }
            return screen.region
        }
        // The monitor captured, when it is one alone.
        let capturedMonitor = capture.sources.count == 1 ? (source as? ScreenPlan)?.monitorName : nil
        let sameScreen = capture.sources.contains { $0.display == targetDisplay }
        let target = WindowTarget(monitor: monitor, avoiding: avoided)
        let targetConnection = sameScreen ? try XConnection(display: targetDisplay)
            : try? XConnection(display: targetDisplay)
        if let targetConnection { try check(target, on: targetConnection) }
        let plan = WindowPlan(
            display: targetDisplay, target: target, windowed: windowed, pictureInPicture: pictureInPicture, fit: fit,
            background: background, filter: filter,
            title: "Podium · \(source.display) \(capturedMonitor ?? source.name)", pictureSize: capture.size)
        return (plan, targetDisplay)
    }

    /// Refuses, before anything is shown, a target that cannot be: one that would show the window
    /// to itself, a picture-in-picture size that does not fit. A monitor that is not there now (a
    /// projector not plugged in yet, a name RandR does not know yet) is waited for, and the wait
    /// says what is there, so a typo shows.
    private func check(_ target: WindowTarget, on display: XConnection) throws(PodiumError) {
        let layout = display.layout()
        let candidates = WindowTarget.candidates(layout.monitors, screen: layout.size)
        switch target.search(layout.monitors, screen: layout.size) {
        case .coversCapture(let chosen) where !windowed:
            let region = target.avoiding.first(where: chosen.rect.intersects) ?? chosen.rect
            let others = candidates.filter { candidate in
                !target.avoiding.contains(where: candidate.rect.intersects)
            }.map(\.name)
            let advice = others.isEmpty
                ? "pass --on-display :N for another display" : "pick " + others.joined(separator: " or ")
            throw .usage("\(naming(chosen.name)) would cover the captured area \(region) and mirror itself; \(advice)")
        case .found(let chosen):
            if let pictureInPicture, let size = pictureInPicture.size,
               let problem = pictureInPicture.sizeProblem(on: chosen.rect) {
                throw .usage("--pip-size '\(size)' \(problem) \(chosen.name)")
            }
        default:
            break
        }
    }
}
