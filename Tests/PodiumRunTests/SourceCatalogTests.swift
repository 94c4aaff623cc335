import PodiumCore
import PodiumRun
import PodiumTestSupport
import PodiumWayland
import PodiumX11
import Synchronization
import Testing

extension InProcess {
    /// The source kinds looked up as the CLI asks for them, on a real X server: each request finds
    /// its kind's plan, the default follows the desktop session, and two sources are composed.
    @Suite struct SourceCatalogTests {
        let server: XvfbServer

        init() throws {
            server = try Tools.laptopAndProjector()
        }

        /// The settings every source shares, on the test's display, with the events kept.
        func lookup(_ events: Said? = nil) -> SourceLookup {
            var lookup = SourceLookup(display: server.display)
            lookup.drawsCursor = false
            lookup.events = { event in events?.events.withLock { $0.append(event) } }
            return lookup
        }

        func resolve(_ request: SourceRequest?, environment: [String: String] = [:]) throws -> any SourcePlan {
            var one = lookup()
            one.request = request
            return try SourceCatalog.resolve(one, environment: environment)
        }

        @Test func eachRequestFindsItsKind() throws {
            let primary = try #require(try resolve(nil) as? ScreenPlan)
            #expect(primary.region == PixelRect(x: 0, y: 0, width: 320, height: 240) && primary.monitorName == "LEFT")
            #expect(!primary.drawsCursor && primary.presenterToolsUnavailable == nil)
            let right = try #require(try resolve(.monitor(.name("RIGHT"))) as? ScreenPlan)
            #expect(right.region == PixelRect(x: 320, y: 0, width: 320, height: 240))
            let region = try #require(
                try resolve(.region(PixelRect(x: 100, y: 10, width: 64, height: 48))) as? ScreenPlan)
            #expect(region.region.size == PixelSize(width: 64, height: 48) && region.monitorName == nil)
            #expect(try resolve(.display(server.display)).display == server.display)

            let window = try TestWindow(display: server.display, title: "Slides", x: 30, y: 30, width: 120,
                                        height: 90, rgb: 0x3366CC)
            try window.waitUntilShown()
            let found = try #require(try resolve(.window(.name("Slides"))) as? WindowSourcePlan)
            #expect(found.window.id == window.id && found.size == PixelSize(width: 120, height: 90))
            #expect(found.name.contains("Slides"))
        }

        @Test func whatIsNotThereIsRefusedByItsKind() throws {
            let monitor = #expect(throws: PodiumError.self) { try resolve(.monitor(.name("HDMI-9"))) }
            #expect(monitor?.exitCode == .unavailable)
            let region = #expect(throws: PodiumError.self) {
                try resolve(.region(PixelRect(x: 600, y: 0, width: 320, height: 240)))
            }
            #expect(region?.exitCode == .usage)
            let window = #expect(throws: PodiumError.self) { try resolve(.window(.name("no such window"))) }
            #expect(window?.exitCode == .unavailable)
        }

        /// With no source named, a session whose `DISPLAY` is a real X server is captured as X11
        /// even when `WAYLAND_DISPLAY` is set; without `DISPLAY` it is Wayland's, through the portal
        /// when the compositor cannot copy its outputs (here: there is no compositor at all).
        @Test func theDefaultFollowsTheDesktopSession() throws {
            #expect(SourceCatalog.waylandDefault([:]) == nil)
            #expect(SourceCatalog.waylandDefault(["DISPLAY": server.display]) == nil)
            #expect(SourceCatalog.waylandDefault(["DISPLAY": server.display, "WAYLAND_DISPLAY": "wayland-404"]) == nil)
            #expect(SourceCatalog.waylandDefault(["WAYLAND_DISPLAY": "wayland-404"]) == .portal)
            // A display named is taken as it is: no session is guessed.
            let said = Said()
            let named = try SourceCatalog.resolve(lookup(said), environment: ["WAYLAND_DISPLAY": "wayland-404"])
            #expect(named is ScreenPlan)
            #expect(said.events.withLock { $0 }.isEmpty)
        }

        @Test func twoSourcesAreComposedOnTheLargerCanvas() async throws {
            let requests: [SourceRequest] = [.monitor(.name("LEFT")), .region(PixelRect(x: 320, y: 0, width: 160,
                                                                                      height: 120))]
            let plan = try await SourceCatalog.capturePlan(requests, lookup: lookup(), layout: Layout(mode: .over),
                                                           idleFPS: FrameRate(2), environment: [:])
            #expect(plan.sources.count == 2 && plan.idleFPS == FrameRate(2))
            let composition = try #require(plan.composition)
            #expect(composition.canvas == PixelSize(width: 320, height: 240) && plan.size == composition.canvas)
            let alone = try await SourceCatalog.capturePlan([], lookup: lookup(), layout: Layout(mode: .over),
                                                           environment: [:])
            #expect(alone.composition == nil && alone.size == PixelSize(width: 320, height: 240))
        }
    }
}

/// What a lookup said, kept.
final class Said: Sendable {
    let events = Mutex<[SourceLookup.Event]>([])
}
