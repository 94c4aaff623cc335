import CXCB
public import PodiumCore
public import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Takes frames of one screen region: the grab, then the cursor drawn in. Follows the captured
/// monitor when the screen's layout changes (a new resolution), without a restart. With damage
/// tracking, a screen that did not change is not grabbed at all, and a change only in its rows.
///
/// Damage is a hint, not a fact: programs repaint without changing a pixel. So the rows grabbed
/// are held against the frame handed out before (its rows' fingerprints), and only rows that
/// differ count as changed; a frame where none does is not handed out at all.
///
/// Not thread-safe: made on the capture thread, which owns the connection, and used there alone.
public final class ScreenCapture: FrameGrabber {
    /// What one capture slot gave.
    public private(set) var grabber: ScreenGrabber
    /// `nil` when every frame is grabbed whole (`--constant-fps`, or a server without Damage).
    private var damage: DamageTracker?
    private let tracksDamage: Bool
    /// Where the cursor was drawn last, to see that it moved.
    private var lastPointer: CursorOverlay.Position?
    /// The rows the cursor covered in the last frame handed out.
    private var lastCursorRows: Range<Int>?
    /// The rows of the last frame handed out, for the next grab to be held against; empty before
    /// the first frame and after a layout change.
    private var handedOut = RowFingerprints()
    /// The RandR monitor being captured, followed through layout changes; `nil` for a fixed region.
    public let monitorName: String?
    private let cursor: CursorOverlay?
    private let connection: XConnection
    private let logger: Logger
    private let allowSharedMemory: Bool
    private let bufferCount: Int
    private let layoutEvents: UInt8?
    /// Set by a RandR notice; the layout is read again before the next grab.
    private var layoutChanged = false
    /// Why nothing can be captured now (the captured monitor is gone), once said.
    private var missing: String?

    /// - Parameter monitorName: the captured monitor's name, to follow it when the layout changes.
    /// - Parameter drawCursor: `--cursor`; ignored (with a notice) when the server lacks XFixes.
    /// - Parameter tracksDamage: grab only what changed; `false` grabs every frame whole (`--constant-fps`).
    /// - Parameter bufferCount: frames that may be in flight at once across every branch.
    public init(connection: XConnection, region: PixelRect, monitorName: String? = nil, allowSharedMemory: Bool, drawCursor: Bool,
                tracksDamage: Bool = false, bufferCount: Int = 4, logger: Logger) {
        self.connection = connection
        self.monitorName = monitorName
        self.allowSharedMemory = allowSharedMemory
        self.logger = logger
        self.bufferCount = bufferCount
        grabber = ScreenGrabber(connection: connection, region: region, allowSharedMemory: allowSharedMemory,
                                bufferCount: self.bufferCount, logger: logger)
        cursor = drawCursor ? CursorOverlay(connection: connection) : nil
        if drawCursor && cursor == nil {
            logger.notice("the X server has no XFixes extension; capturing without the cursor")
        }
        layoutEvents = connection.watchLayout()
        self.tracksDamage = tracksDamage
        damage = tracksDamage
            ? DamageTracker(connection: connection, region: region, bufferCount: self.bufferCount) : nil
        if tracksDamage && damage == nil {
            logger.notice("the X server has no Damage extension; grabbing every frame whole")
        }
    }

    /// Opens the display of `plan` and captures its region: the run's source, made on the
    /// capture thread.
    /// - Parameter bufferCount: frames that may be in flight at once across every stage.
    /// - Throws: 69 when the display cannot be opened or its pixels read.
    public convenience init(plan: ScreenPlan, bufferCount: Int, logger: Logger) throws(PodiumError) {
        let connection = try XConnection(display: plan.display)
        try connection.requireBGRAPixels()
        self.init(connection: connection, region: plan.region, monitorName: plan.monitorName,
                  allowSharedMemory: plan.sharedMemory, drawCursor: plan.drawsCursor, tracksDamage: plan.tracksDamage,
                  bufferCount: bufferCount, logger: logger)
    }

    /// `1920x1080+0+0 of :1 with MIT-SHM`.
    public var description: String { "\(region) of \(connection.displayName) with \(method.rawValue)" }

    public var region: PixelRect { grabber.region }
    public var method: ScreenGrabber.Method { grabber.method }

    /// Grabs one frame into a free buffer, when the screen changed or `evenIfUnchanged`.
    /// - Throws: 69 when the X server refused or went away.
    public func capture(sequence: UInt64, time: UInt64, slotTime: UInt64 = 0, evenIfUnchanged: Bool = true)
        throws(PodiumError) -> CaptureOutcome {
        do {
            return try grab(sequence: sequence, time: time, slotTime: slotTime, evenIfUnchanged: evenIfUnchanged)
        } catch {
            throw .unavailable("lost the X display: \(error)")
        }
    }

    private func grab(sequence: UInt64, time: UInt64, slotTime: UInt64, evenIfUnchanged: Bool)
        throws(X11RequestError) -> CaptureOutcome {
        handleEvents()
        if layoutChanged { followLayout() }
        guard missing == nil else { return .waiting }
        let pointerCookie = cursor?.requestPosition()
        var looks = damage == nil || evenIfUnchanged
        // Every damage report is collected here, once a slot, however many came since the last.
        let damaged = damage.map { $0.isPending && !$0.collect().isEmpty } ?? false
        if damaged { looks = true }
        let pointer = pointerCookie.flatMap { cursor?.position($0) }
        if pointer != lastPointer || cursor?.stale == true { looks = true }
        guard looks else { return .unchanged }
        guard let buffer = grabber.pool.acquire() else { return .busy }
        // A buffer from the pool needs only the rows that changed since it was last filled.
        let grabbedRows = damage.map { $0.takeStaleRows(of: buffer.index) }
        do {
            try grabber.grab(into: buffer, rows: grabbedRows)
        } catch {
            buffer.share(with: 0)
            damage?.markStale(RowBands(0..<grabber.region.height), onlyIn: buffer.index)
            // A grab that raced a resolution change fails with BadMatch before the notice arrives.
            guard error.code != 0 else { throw error }
            let before = grabber.region
            followLayout()
            if grabber.region != before { return .busy }
            if missing != nil { return .waiting }
            throw error
        }
        var frame = CapturedFrame(buffer: buffer, size: grabber.region.size, bytesPerRow: grabber.bytesPerRow,
                                  captureTime: time, slotTime: slotTime, sequence: sequence)
        var cursorRows: Range<Int>?
        if let cursor {
            lastPointer = pointer
            cursorRows = cursor.draw(into: frame, region: grabber.region, at: pointer)
            // The cursor's rows in this buffer now differ from the screen: grab them again next time.
            if let cursorRows { damage?.markStale(RowBands(cursorRows), onlyIn: buffer.index) }
        }
        let previousCursorRows = lastCursorRows
        lastCursorRows = cursorRows
        if damage != nil {
            if handedOut.isEmpty {
                handedOut.remember(buffer, height: grabber.region.height, bytesPerRow: grabber.bytesPerRow)
            } else {
                // Outside the rows just grabbed and the cursor's, this buffer holds the screen as
                // the last frame handed out showed it.
                var compared = grabbedRows ?? RowBands(0..<grabber.region.height)
                if let previousCursorRows { compared.insert(previousCursorRows) }
                if let cursorRows { compared.insert(cursorRows) }
                frame.changedRows = handedOut.rowsChanged(in: buffer, among: compared)
            }
            if frame.changedRows?.isEmpty == true && !evenIfUnchanged {
                buffer.share(with: 0)
                return damaged ? .repainted : .unchanged
            }
        }
        return .frame(frame)
    }

    /// Reads what the server reported: cursor changes and layout changes.
    private func handleEvents() {
        while let event = xcb_poll_for_event(connection.raw) {
            let type = event.pointee.response_type & 0x7F
            if let cursor, type == cursor.cursorNotifyEvent { cursor.stale = true }
            if let damage, type == damage.notifyEvent { damage.isPending = true }
            if let base = layoutEvents, type == base + UInt8(XCB_RANDR_SCREEN_CHANGE_NOTIFY) || type == base + UInt8(XCB_RANDR_NOTIFY) {
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
        var area = grabber.region
        if let monitorName {
            guard let monitor = layout.monitors.first(where: { $0.name == monitorName }), screen.contains(monitor.rect) else {
                return wait("monitor \(monitorName) is gone; waiting for it to come back")
            }
            area = monitor.rect
        }
        guard screen.contains(area) else { return wait("the region \(area) no longer fits the \(layout.size) screen; waiting") }
        if missing != nil {
            missing = nil
            logger.notice("capturing \(monitorName ?? "the region") again")
        }
        guard area != grabber.region else { return }
        logger.notice("\(monitorName.map { "monitor \($0)" } ?? "the screen") is now \(area); capturing that")
        grabber = ScreenGrabber(connection: connection, region: area, allowSharedMemory: allowSharedMemory, bufferCount: bufferCount, logger: logger)
        // A picture of another size is not compared: the next frame is new everywhere.
        handedOut.forget()
        lastCursorRows = nil
        damage = tracksDamage ? DamageTracker(connection: connection, region: area, bufferCount: bufferCount) : nil
    }

    private func wait(_ reason: String) {
        if missing != reason { logger.notice("\(reason)") }
        missing = reason
    }
}
