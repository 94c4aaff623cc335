public import PodiumCore
import Foundation
import PodiumMedia
import PodiumWayland
import PodiumX11

/// Every kind of source a run can capture, and the choice of one when none is named: the place a
/// new kind is added (its resolver here, its case in `SourceRequest`).
public enum SourceCatalog {
    /// The kinds, each asked in turn: the first whose kind the request names answers.
    public static let resolvers: [any SourceResolver] = [
        ScreenPlan.Resolver(),
        WindowSourcePlan.Resolver(),
        WaylandScreenPlan.Resolver(),
        PipeWirePlan.Resolver(),
        ScreenCastPortal.Resolver(),
        Camera.Resolver(),
        DeviceCamera.Resolver(),
    ]

    /// The capture of `requests` (the primary first; none for the default source), each looked up
    /// on a thread of its own, two composed into one picture as large as the larger.
    /// - Parameters:
    ///   - lookup: the settings every source shares; its request is each of `requests` in turn.
    ///   - environment: where the desktop session is said (`WAYLAND_DISPLAY`, `DISPLAY`): the
    ///     program's (`Invocation.environment`).
    /// - Throws: what the sources' resolvers throw: 69 when one is not there, 64 when a request
    ///   cannot be honoured.
    public static func capturePlan(
        _ requests: [SourceRequest], lookup: SourceLookup, layout: Layout, filter: ScaleFilter = .box,
        idleFPS: FrameRate? = FrameRate(1),
        environment: [String: String]
    ) async throws(PodiumError) -> CapturePlan {
        let sources = try await onOwnThread("podium-display") { () throws(PodiumError) -> [any SourcePlan] in
            var found: [any SourcePlan] = []
            for request in requests.isEmpty ? [nil] : requests.map(Optional.some) {
                var one = lookup
                one.request = request
                found.append(try resolve(one, environment: environment))
            }
            return found
        }
        guard sources.count > 1 else { return CapturePlan(sources[0], idleFPS: idleFPS) }
        // As large as the larger source: neither is made smaller than it is by the canvas itself.
        let canvas = sources.map(\.size).max { $0.area < $1.area } ?? sources[0].size
        return CapturePlan(sources: sources, composition: .init(layout: layout, canvas: canvas, filter: filter),
                           idleFPS: idleFPS)
    }

    /// The source `lookup` asks for. Blocks: call it off the cooperative pool.
    public static func resolve(_ lookup: SourceLookup,
                               environment: [String: String]) throws(PodiumError) -> any SourcePlan {
        var lookup = lookup
        if lookup.request == nil, lookup.display == nil, let desktop = waylandDefault(environment) {
            lookup.request = desktop
            if desktop == .wlr(nil) { lookup.display = environment["WAYLAND_DISPLAY"] }
            lookup.events(desktop == .wlr(nil) ? .waylandScreencopy : .waylandPortal)
        }
        for resolver in resolvers {
            if let plan = try resolver.resolve(lookup) { return plan }
        }
        throw .software("no kind of source takes '\(lookup.request.map(String.init(describing:)) ?? "the default")'")
    }

    /// What to capture when no source is named: `nil` for X11, when there is no
    /// `WAYLAND_DISPLAY` or `DISPLAY` is a real X server (XWayland shows only X windows);
    /// otherwise the compositor's outputs when it copies them itself (wlroots: no dialog, and
    /// cheaper), or what the user shares through the desktop's portal (GNOME, KDE and the rest).
    public static func waylandDefault(_ environment: [String: String]) -> SourceRequest? {
        guard let wayland = environment["WAYLAND_DISPLAY"], !wayland.isEmpty else { return nil }
        if let display = environment["DISPLAY"], !display.isEmpty,
           (try? XConnection(display: display))?.isXWayland != true {
            return nil
        }
        return (try? WaylandDisplay(name: wayland))?.canCopyOutputs == true ? .wlr(nil) : .portal
    }
}
