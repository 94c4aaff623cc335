import Foundation
import Logging
import PodiumCore
import PodiumTestSupport
@testable import PodiumX11
import Testing

/// One window captured through Composite on a display with a window manager (openbox frames its
/// windows): listed with its names and size, right when covered, followed through a resize,
/// waited for when it closes, and the run's end with `--exit-when-gone`.
@Suite struct WindowCaptureTests {
    let logger = Logger(label: "test")
    static let red: UInt32 = 0xC00000
    static let blue: UInt32 = 0x0000C0
    static let green: UInt32 = 0x00A000

    /// A display with openbox, and the red window `Slides — Impress` on it.
    func slides(width: Int = 200, height: Int = 150) throws -> (XvfbServer, WindowManager, TestWindow) {
        let server = try XvfbServer(width: 640, height: 480)
        let manager = try WindowManager(display: server.display)
        let window = try TestWindow(display: server.display, title: "Slides — Impress", instance: "soffice",
                                    className: "libreoffice-impress", x: 40, y: 40, width: width, height: height,
                                    rgb: Self.red)
        try window.waitUntilShown()
        return (server, manager, window)
    }

    func capture(_ server: XvfbServer, _ window: TestWindow, exitWhenGone: Bool = false) throws -> WindowCapture {
        let plan = try WindowSourcePlan.look(display: server.display, selector: .id(window.id), drawsCursor: false,
                                             exitWhenGone: exitWhenGone)
        return try WindowCapture(plan: plan, bufferCount: 4, logger: logger)
    }

    /// Grabs (whole) until a frame comes; returns its size and the colour of every pixel, as `0xRRGGBB`.
    func frame(_ capture: WindowCapture, time: UInt64 = 0, tries: Int = 40) throws -> (PixelSize, Set<UInt32>) {
        for attempt in 0..<tries {
            let outcome = try capture.capture(sequence: UInt64(attempt), time: time + UInt64(attempt) * 100_000_000,
                                              slotTime: 0, evenIfUnchanged: true)
            if case .frame(let frame) = outcome {
                defer { frame.buffer.share(with: 0) }
                let pixels = UnsafeBufferPointer(start: frame.buffer.bytes.assumingMemoryBound(to: UInt32.self),
                                                 count: frame.size.area)
                return (frame.size, Set(pixels.map { $0 & 0xFFFFFF }))
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw TestFailure("no frame in \(tries) tries")
    }

    @Test func listsTheWindowWithItsNamesAndSize() throws {
        let (server, manager, window) = try slides()
        defer { withExtendedLifetime(manager) {} }
        let windows = try XConnection(display: server.display).clientWindows()
        let listed = try #require(windows.first { $0.id == window.id }, "\(windows)")
        #expect(listed.title == "Slides — Impress")
        #expect(listed.instance == "soffice" && listed.className == "libreoffice-impress")
        #expect(listed.rect.size == PixelSize(width: 200, height: 150))
        #expect(listed.isMapped)
        // Under the frame: the client window sits below the title bar, inside the screen.
        #expect(listed.rect.y >= 40 && listed.rect.maxY <= 480, "\(listed.rect)")
    }

    /// Without a window manager nothing carries WM_STATE: the root's named children are listed.
    @Test func listsWindowsWithoutAWindowManager() throws {
        let server = try XvfbServer(width: 320, height: 240)
        let window = try TestWindow(display: server.display, title: "bare", x: 10, y: 20, width: 64, height: 48,
                                    rgb: Self.blue)
        try window.waitUntilShown()
        let windows = try XConnection(display: server.display).clientWindows()
        #expect(windows == [ClientWindow(id: window.id, title: "bare", instance: "podium-test", className: "PodiumTest",
                                         rect: PixelRect(x: 10, y: 20, width: 64, height: 48))])
    }

    /// Another window on top of it: the capture still shows the window's own pixels.
    @Test func aCoveredWindowIsCapturedRight() throws {
        let (server, manager, window) = try slides()
        defer { withExtendedLifetime(manager) {} }
        let capture = try capture(server, window)
        let cover = try TestWindow(display: server.display, title: "cover", x: 40, y: 40, width: 200, height: 150,
                                   rgb: Self.blue)
        try cover.waitUntilShown()
        let listed = try XConnection(display: server.display).clientWindows().first { $0.id == window.id }
        let rect = try #require(listed?.rect)
        // The screen shows the cover where the window is.
        let screen = try Tools.grabScreen(server.display, width: 640, height: 480)
        let middle = ((rect.y + rect.height / 2) * 640 + rect.x + rect.width / 2) * 4
        #expect(Array(screen[middle..<middle + 3]) == [0xC0, 0, 0], "blue on screen")
        let (size, colours) = try frame(capture)
        #expect(size == PixelSize(width: 200, height: 150))
        #expect(colours == [Self.red], "\(colours.map { String($0, radix: 16) })")
        #expect(capture.description.hasPrefix("window 'Slides — Impress' (\(window.hexID), 200x150) of "))
    }

    /// Damage-driven: nothing drawn, nothing grabbed; a repaint in another colour is a frame
    /// of that colour.
    @Test func aChangeIsGrabbedAndNothingElse() throws {
        let (server, manager, window) = try slides()
        defer { withExtendedLifetime(manager) {} }
        let capture = try capture(server, window)
        _ = try frame(capture)
        Thread.sleep(forTimeInterval: 0.2)
        var outcome = try capture.capture(sequence: 1, time: 0, slotTime: 0, evenIfUnchanged: false)
        if case .frame(let extra) = outcome { extra.buffer.share(with: 0) }
        outcome = try capture.capture(sequence: 2, time: 0, slotTime: 0, evenIfUnchanged: false)
        guard case .unchanged = outcome else { throw TestFailure("nothing changed, yet \(outcome)") }
        window.paint(rgb: Self.green)
        var changed: Set<UInt32> = []
        for attempt in 0..<20 where changed.isEmpty {
            Thread.sleep(forTimeInterval: 0.05)
            if case .frame(let frame) = try capture.capture(sequence: UInt64(3 + attempt), time: 0, slotTime: 0,
                                                           evenIfUnchanged: false) {
                defer { frame.buffer.share(with: 0) }
                #expect(frame.changedRows == RowBands(0..<150))
                let pixels = UnsafeBufferPointer(start: frame.buffer.bytes.assumingMemoryBound(to: UInt32.self),
                                                 count: frame.size.area)
                changed = Set(pixels.map { $0 & 0xFFFFFF })
            }
        }
        #expect(changed == [Self.green])
    }

    /// A resize by the window manager: frames of the new size, of the window's colour.
    @Test func aResizeIsFollowed() throws {
        let (server, manager, window) = try slides()
        defer { withExtendedLifetime(manager) {} }
        let capture = try capture(server, window)
        #expect(try frame(capture).0 == PixelSize(width: 200, height: 150))
        try Tools.xdotool(server.display, "windowsize", "\(window.id)", "120", "90")
        var last = PixelSize(width: 0, height: 0)
        for _ in 0..<40 where last != PixelSize(width: 120, height: 90) {
            let (size, colours) = try frame(capture)
            last = size
            #expect(colours == [Self.red])
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(last == PixelSize(width: 120, height: 90))
    }

    /// Closed: waiting; a new window of the same name is captured (looked for twice a second).
    @Test func aClosedWindowIsWaitedForByName() throws {
        let (server, manager, window) = try slides()
        defer { withExtendedLifetime(manager) {} }
        let capture = try capture(server, window)
        _ = try frame(capture)
        window.destroy()
        Thread.sleep(forTimeInterval: 0.1)
        let outcome = try capture.capture(sequence: 1, time: 1_000_000_000, slotTime: 0, evenIfUnchanged: true)
        guard case .waiting = outcome else { throw TestFailure("closed, yet \(outcome)") }
        let again = try TestWindow(display: server.display, title: "Slides — Impress", width: 160, height: 100,
                                   rgb: Self.green)
        try again.waitUntilShown()
        let (size, colours) = try frame(capture, time: 2_000_000_000)
        #expect(size == PixelSize(width: 160, height: 100))
        #expect(colours == [Self.green])
        #expect(capture.window.id == again.id)
    }

    /// `--exit-when-gone`: a closed window ends the run.
    @Test func exitWhenGoneEnds() throws {
        let (server, manager, window) = try slides()
        defer { withExtendedLifetime(manager) {} }
        let capture = try capture(server, window, exitWhenGone: true)
        _ = try frame(capture)
        window.destroy()
        Thread.sleep(forTimeInterval: 0.1)
        let outcome = try capture.capture(sequence: 1, time: 0, slotTime: 0, evenIfUnchanged: true)
        guard case .ended = outcome else { throw TestFailure("closed, yet \(outcome)") }
    }
}
