import CXCB
public import PodiumCore
public import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Takes frames of one screen region: the grab, then the cursor drawn in. Follows the captured
/// monitor when the screen's layout changes (a new resolution), without a restart. With damage
/// tracking, a screen that did not change is not grabbed at all, and a change only in its rows;
/// what was grabbed is verified against the frame before (`VerifiedGrabber`).
///
/// Not thread-safe: made on the capture thread, which owns the connection, and used there alone.
public final class ScreenCapture: FrameGrabber {
    private let verified: VerifiedGrabber
    /// The RandR monitor being captured, followed through layout changes; `nil` for a fixed region.
    public let monitorName: String?
    private let connection: XConnection
    private let logger: Logger
    private let layoutEvents: UInt8?
    /// Set by a RandR notice; the layout is read again before the next grab.
    private var layoutChanged = false
    /// Why nothing can be captured now (the captured monitor is gone), once said.
    private var missing: String?
    /// The windows painted black (`--mask-window`, `--mask notifications`); `nil` for none.
    private let masks: WindowMasks?
    /// The border drawn around the captured area (`--show-region`).
    private let border: RegionBorder?

    /// - Parameter monitorName: the captured monitor's name, to follow it when the layout changes.
    /// - Parameter drawCursor: `--cursor`; ignored (with a notice) when the server lacks XFixes.
    /// - Parameter tracksDamage: grab only what changed; `false` grabs every frame whole (`--constant-fps`).
    /// - Parameter bufferCount: frames that may be in flight at once across every branch.
    /// - Parameter masks: the windows to paint black.
    /// - Parameter showsRegion: `--show-region`: a border around the captured area, outside it.
    public init(connection: XConnection, region: PixelRect, monitorName: String? = nil, allowSharedMemory: Bool,
                drawCursor: Bool, tracksDamage: Bool = false, bufferCount: Int = 4,
                masks: PrivacyMasks = PrivacyMasks(), showsRegion: Bool = false, logger: Logger) {
        self.connection = connection
        self.monitorName = monitorName
        self.logger = logger
        verified = VerifiedGrabber(connection: connection,
                                   target: .init(drawable: connection.root, window: connection.root, region: region),
                                   allowSharedMemory: allowSharedMemory, drawCursor: drawCursor,
                                   tracksDamage: tracksDamage, bufferCount: bufferCount, logger: logger)
        layoutEvents = connection.watchLayout()
        self.masks = masks.isEmpty ? nil : WindowMasks(connection: connection, masks: masks, logger: logger)
        border = showsRegion ? RegionBorder(connection: connection, around: region) : nil
    }

    /// Opens the display of `plan` and captures its region: the run's source, made on the
    /// capture thread.
    /// - Parameter bufferCount: frames that may be in flight at once across every stage.
    /// - Throws: 69 when the display cannot be opened or its pixels read.
    public convenience init(plan: ScreenPlan, bufferCount: Int, logger: Logger)
        throws(PodiumError) {
        let connection = try XConnection(display: plan.display)
        try connection.requireBGRAPixels()
        self.init(connection: connection, region: plan.region, monitorName: plan.monitorName,
                  allowSharedMemory: plan.sharedMemory, drawCursor: plan.drawsCursor, tracksDamage: plan.tracksDamage,
                  bufferCount: bufferCount, masks: plan.masks, showsRegion: plan.showsRegion,
                  logger: logger)
    }

    /// `1920x1080+0+0 of :1 with MIT-SHM`.
    public var description: String { "\(region) of \(connection.displayName) with \(method.rawValue)" }

    /// What one capture slot gave.
    public var grabber: ScreenGrabber { verified.grabber }
    /// The area captured.
    public var region: PixelRect { verified.target.region }
    /// Where the pointer was at the last grab, in the region's pixels.
    public var pointer: PointerReport? { verified.report }
    public var method: ScreenGrabber.Method { grabber.method }

    /// Grabs one frame into a free buffer, when the screen changed or `evenIfUnchanged`.
    /// - Throws: 69 when the X server refused or went away.
    public func capture(sequence: UInt64, time: UInt64, slotTime: UInt64 = 0, evenIfUnchanged: Bool = true)
        throws(PodiumError) -> CaptureOutcome {
        do {
            return try grab(sequence: sequence, time: time, slotTime: slotTime, evenIfUnchanged: evenIfUnchanged)
        } catch {
            throw .unavailable("lost the X display \(connection.displayName): \(error)")
        }
    }

    /// Sleeps on the X connection until the server says something (damage, the pointer moved,
    /// the cursor's picture, the layout), `doorbell` rings or `timeout` passed, when it would say
    /// every change.
    public func awaitChange(timeout: UInt64, or doorbell: Doorbell) -> Bool {
        guard masks == nil, missing == nil, verified.saysWhenItChanges else { return false }
        // Events a reply brought in are already queued, where poll would not see them.
        handleEvents(queuedOnly: true)
        guard !verified.mayHaveChanged, !layoutChanged else { return true }
        var descriptors = [pollfd(fd: xcb_get_file_descriptor(connection.raw), events: Int16(POLLIN), revents: 0),
                           pollfd(fd: doorbell.descriptor, events: Int16(POLLIN), revents: 0)]
        _ = poll(&descriptors, 2, Int32(min(timeout / 1_000_000, 1_000)))
        doorbell.answer()
        return true
    }

    private func grab(sequence: UInt64, time: UInt64, slotTime: UInt64, evenIfUnchanged: Bool)
        throws(X11RequestError) -> CaptureOutcome {
        handleEvents()
        if layoutChanged { followLayout() }
        guard missing == nil else { return .waiting }
        do {
            if let masks {
                _ = masks.refresh()
                verified.masks = masks.areas
            }
            let outcome = try verified.grab(sequence: sequence, time: time, slotTime: slotTime,
                                            evenIfUnchanged: evenIfUnchanged)
            // A window to mask may have moved or appeared while the frame was grabbed: the notices
            // that came before the grab's answer say so, and the frame is masked where it is now too.
            guard let masks, case .frame(var frame) = outcome else { return outcome }
            handleEvents(queuedOnly: true)
            if masks.refresh() || masks.areas != verified.masks { verified.cover(masks.areas, in: &frame) }
            return .frame(frame)
        } catch {
            // A grab that raced a resolution change fails with BadMatch before the notice arrives.
            guard error.code != 0 else { throw error }
            let before = region
            followLayout()
            if region != before { return .busy }
            if missing != nil { return .waiting }
            throw error
        }
    }

    /// Reads what the server reported: cursor changes, damage, clicks, windows and layout changes.
    /// - Parameter queuedOnly: only those already read from the connection (with a reply).
    private func handleEvents(queuedOnly: Bool = false) {
        while let event = queuedOnly ? xcb_poll_for_queued_event(connection.raw) : xcb_poll_for_event(connection.raw) {
            let type = event.pointee.response_type & 0x7F
            verified.handle(event)
            masks?.handle(event)
            if let base = layoutEvents,
               type == base + UInt8(XCB_RANDR_SCREEN_CHANGE_NOTIFY) || type == base + UInt8(XCB_RANDR_NOTIFY) {
                layoutChanged = true
            }
            free(event)
        }
    }

    /// Finds the captured area in the current layout: the monitor by name at its new size, or
    /// the fixed region if it still fits the screen. Frames in flight keep their old buffers.
    private func followLayout() {
        layoutChanged = false
        let layout = connection.layout()
        let screen = PixelRect(x: 0, y: 0, size: layout.size)
        var area = region
        if let monitorName {
            guard let monitor = layout.monitors.first(where: { $0.name == monitorName }),
                  screen.contains(monitor.rect) else {
                return wait("monitor \(monitorName) is gone; waiting for it to come back")
            }
            area = monitor.rect
        }
        guard screen.contains(area) else {
            return wait("the region \(area) no longer fits the \(layout.size) screen; waiting")
        }
        if missing != nil {
            missing = nil
            logger.notice("capturing \(monitorName ?? "the region") again")
        }
        guard area != region else { return }
        logger.notice("\(monitorName.map { "monitor \($0)" } ?? "the screen") is now \(area); capturing that")
        verified.retarget(.init(drawable: connection.root, window: connection.root, region: area))
        border?.surround(area)
    }

    private func wait(_ reason: String) {
        if missing != reason { logger.notice("\(reason)") }
        missing = reason
    }
}
