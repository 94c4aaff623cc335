import CXCB
public import PodiumCore
public import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Takes frames of one X window's own pixels: the window is redirected with Composite (automatic
/// update: the server still draws it on screen), and its backing pixmap is read, so the picture
/// is right when the window is covered or partly off screen. Damage-driven and change-verified
/// as a screen is (`VerifiedGrabber`); the cursor is drawn in when it is over the window.
///
/// It follows the window: a resize names the new pixmap and hands out frames of the new size (the
/// encoders letterbox them, as for a resolution change). When the window closes or is hidden it
/// says so once and looks, about twice a second, for a shown window that matches the plan's
/// name, and captures that; or, with `--exit-when-gone`, it ends the run.
///
/// Not thread-safe: made on the capture thread, which owns the connection, and used there alone.
public final class WindowCapture: FrameGrabber {
    private let connection: XConnection
    private let atoms: WindowAtoms
    private let plan: WindowSourcePlan
    private let logger: Logger
    private var verified: VerifiedGrabber
    /// The window captured now, or the last one while waiting.
    public private(set) var window: ClientWindow
    /// The window's pixmap, named through Composite: ours to free. `nil` while waiting.
    private var pixmap: xcb_pixmap_t?
    /// Set by a ConfigureNotify of another size: the pixmap is named again before the next grab.
    private var resized = false
    /// When the last look for a replacement was, on the run's clock, while waiting.
    private var lastSearch: UInt64?

    /// How often a closed window's replacement is looked for.
    static let searchInterval: UInt64 = 500_000_000

    /// Opens the display of `plan` and redirects its window: the run's source, made on the
    /// capture thread.
    /// - Parameter bufferCount: frames that may be in flight at once across every stage.
    /// - Throws: 69 when the display cannot be opened, lacks Composite, or the window is gone.
    public init(plan: WindowSourcePlan, bufferCount: Int, logger: Logger)
        throws(PodiumError) {
        connection = try XConnection(display: plan.display)
        try connection.requireBGRAPixels()
        try connection.requireComposite()
        self.plan = plan
        self.logger = logger
        atoms = WindowAtoms(connection)
        window = plan.window
        guard case let (pixmap, target)? = Self.redirect(plan.window.id, on: connection, first: true) else {
            throw .unavailable("window \(plan.window.label) closed before capture began")
        }
        self.pixmap = pixmap
        window.rect.size = target.region.size
        verified = VerifiedGrabber(connection: connection, target: target, allowSharedMemory: plan.sharedMemory,
                                   drawCursor: plan.drawsCursor, tracksDamage: plan.tracksDamage,
                                   bufferCount: bufferCount, logger: logger)
    }

    deinit {
        release()
    }

    /// Where the pointer was at the last grab, in the window's pixels.
    public var pointer: PointerReport? { verified.report }

    /// `window 'Slides' (0x1a00007, 1280x720) of :1 with MIT-SHM`.
    public var description: String {
        "window '\(window.title)' (\(window.hexID), \(window.rect.size)) of \(connection.displayName) "
            + "with \(verified.grabber.method.rawValue)"
    }

    /// Grabs one frame into a free buffer, when the window changed or `evenIfUnchanged`.
    /// - Throws: 69 when the X server went away.
    public func capture(sequence: UInt64, time: UInt64, slotTime: UInt64, evenIfUnchanged: Bool)
        throws(PodiumError) -> CaptureOutcome {
        handleEvents()
        if pixmap == nil {
            if plan.exitWhenGone { return .ended }
            guard lastSearch.map({ time >= $0 + Self.searchInterval }) ?? true else { return .waiting }
            lastSearch = time
            guard findReplacement() else { return .waiting }
        } else if resized {
            resized = false
            guard attach(window.id) else { return gone(.closed) }
        }
        do {
            return try verified.grab(sequence: sequence, time: time, slotTime: slotTime,
                                     evenIfUnchanged: evenIfUnchanged)
        } catch let error where error.code != 0 {
            // The pixmap or window went away between two looks at the events.
            return gone(.closed)
        } catch {
            throw .unavailable("lost the X display \(connection.displayName): \(error)")
        }
    }

    /// Reads what the server reported: the window's changes, cursor and damage notices. X errors
    /// of requests not waited for (a window gone as its redirect was undone) are dropped.
    private func handleEvents() {
        /// How the window went: a destruction comes right after its unmap, and is what is said.
        var lost: Loss?
        while let event = xcb_poll_for_event(connection.raw) {
            defer { free(event) }
            let type = event.pointee.response_type & 0x7F
            verified.handle(event)
            // Once the window is let go of, nothing more of it is said.
            guard pixmap != nil else { continue }
            switch Int32(type) {
            case XCB_CONFIGURE_NOTIFY:
                let configure = UnsafeRawPointer(event).load(as: xcb_configure_notify_event_t.self)
                guard configure.window == window.id else { continue }
                let size = PixelSize(width: Int(configure.width), height: Int(configure.height))
                if size != verified.target.region.size { resized = true }
            case XCB_DESTROY_NOTIFY:
                let destroyed = UnsafeRawPointer(event).load(as: xcb_destroy_notify_event_t.self)
                if destroyed.window == window.id { lost = .closed }
            case XCB_UNMAP_NOTIFY:
                let unmapped = UnsafeRawPointer(event).load(as: xcb_unmap_notify_event_t.self)
                if unmapped.window == window.id { lost = lost ?? .hidden }
            default:
                break
            }
        }
        guard var lost else { return }
        // An unmap and the destruction that made it may be read apart: whether the window is
        // still there tells which it was.
        if lost == .hidden && !connection.exists(window.id) { lost = .closed }
        gone(lost)
    }

    /// How a window stopped being captured, as messages say it.
    private enum Loss: String {
        case closed
        /// Unmapped (minimized, on another desktop): the server keeps no pixels of it.
        case hidden = "was hidden"
    }

    /// The window is gone (`how`): says so once, lets go of it, and waits for another, or ends
    /// the run with `--exit-when-gone`.
    @discardableResult
    private func gone(_ loss: Loss) -> CaptureOutcome {
        let how = loss.rawValue
        if plan.exitWhenGone {
            logger.notice("window \(window.label) \(how); ending the run, as asked")
        } else {
            logger.notice("window \(window.label) \(how); waiting for a window named '\(plan.awaitedName)'")
        }
        release()
        lastSearch = nil
        return plan.exitWhenGone ? .ended : .waiting
    }

    /// Looks for a shown window that matches the plan's name (the newest, when several do) and
    /// captures it.
    private func findReplacement() -> Bool {
        let shown = connection.clientWindows().filter(\.isMapped)
        guard let found = WindowSelector.matches(of: plan.awaitedName, in: shown).last,
              attach(found.id) else { return false }
        window = found
        window.rect.size = verified.target.region.size
        logger.notice("capturing window \(window.label) (\(window.rect.size))")
        return true
    }

    /// Captures window `id` from now on: redirects it and names its pixmap again (a resize or a
    /// new window); `false` when it cannot be (it is gone or not shown).
    private func attach(_ id: xcb_window_t) -> Bool {
        // Still redirected when it is the window captured now (a resize); a new one is not yet.
        let first = pixmap == nil || id != window.id
        if pixmap != nil && id != window.id { release() }
        if let previous = pixmap {
            xcb_free_pixmap(connection.raw, previous)
            pixmap = nil
        }
        guard case let (named, target)? = Self.redirect(id, on: connection, first: first) else { return false }
        pixmap = named
        verified.retarget(target)
        return true
    }

    /// Lets go of the window: frees its pixmap and undoes the redirect (the server keeps
    /// drawing it either way).
    private func release() {
        guard let pixmap else { return }
        xcb_free_pixmap(connection.raw, pixmap)
        xcb_composite_unredirect_window(connection.raw, window.id, redirectMode)
        connection.flush()
        self.pixmap = nil
    }

    private var redirectMode: UInt8 { UInt8(XCB_COMPOSITE_REDIRECT_AUTOMATIC.rawValue) }

    /// Asks for the window's structure notices and redirects it (automatic: still drawn on
    /// screen) when it is `first` taken, then names its current pixmap.
    ///
    /// The corresponding C functions are `xcb_composite_redirect_window` and
    /// `xcb_composite_name_window_pixmap`.
    /// - Returns: the pixmap and what to grab of it; `nil` when the window is gone or not shown
    ///   (an unmapped window has no pixmap).
    private static func redirect(_ id: xcb_window_t, on connection: XConnection, first: Bool)
        -> (xcb_pixmap_t, VerifiedGrabber.Target)? {
        if first {
            let events = XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue
            xcb_change_window_attributes(connection.raw, id, XCB_CW_EVENT_MASK.rawValue, [events])
            xcb_composite_redirect_window(connection.raw, id, UInt8(XCB_COMPOSITE_REDIRECT_AUTOMATIC.rawValue))
        }
        let pixmap = connection.generateID()
        do {
            try connection.check(xcb_composite_name_window_pixmap_checked(connection.raw, id, pixmap))
        } catch {
            return nil
        }
        // The pixmap's own size: the window may have been resized since its notice was sent.
        let cookie = xcb_get_geometry(connection.raw, pixmap)
        guard let size = try? connection.withReply({ xcb_get_geometry_reply($0, cookie, $1) }, {
            PixelSize(width: Int($0.pointee.width), height: Int($0.pointee.height))
        }), size.width > 0, size.height > 0 else {
            xcb_free_pixmap(connection.raw, pixmap)
            return nil
        }
        return (pixmap, .init(drawable: pixmap, window: id, region: PixelRect(x: 0, y: 0, size: size)))
    }
}

extension XConnection {
    /// Whether window `id` still exists (one round trip).
    ///
    /// The corresponding C function is `xcb_get_window_attributes`.
    func exists(_ id: xcb_window_t) -> Bool {
        let cookie = xcb_get_window_attributes(raw, id)
        return (try? withReply({ xcb_get_window_attributes_reply($0, cookie, $1) }) { _ in }) != nil
    }

    /// Checks that the server offers Composite 0.2 or later (naming a window's pixmap), and makes
    /// the version handshake it requires before any other request.
    /// - Throws: 69 when it does not.
    func requireComposite() throws(PodiumError) {
        let version = hasExtension(cxcb_composite_id()) ? try? withReply({
            xcb_composite_query_version_reply($0, xcb_composite_query_version($0, 0, 4), $1)
        }, { (major: $0.pointee.major_version, minor: $0.pointee.minor_version) }) : nil
        guard let version, version.major > 0 || version.minor >= 2 else {
            throw .unavailable("display \(displayName) has no Composite extension (0.2 or later); "
                               + "a window cannot be captured there", remedy: .region)
        }
    }
}
