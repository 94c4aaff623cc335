import CXCB
import PodiumCore
import Logging

/// The grab a screen and a window share: damage-driven (nothing changed, nothing grabbed; a
/// change grabs only its rows), change-verified, with the cursor drawn in. It says where the
/// pointer is and when it clicked, for the presenter's tools that the run draws over its frames.
///
/// Damage is a hint, not a fact: programs repaint without changing a pixel. So the rows grabbed
/// are held against the frame handed out before (its rows' fingerprints), and only rows that
/// differ count as changed; a frame where none does is not handed out at all.
///
/// Not thread-safe: made on the capture thread, which owns the connection, and used there alone.
final class VerifiedGrabber {
    /// What is grabbed: a drawable's rectangle, and the window whose drawing and pointer count.
    struct Target: Equatable {
        /// Read by the grab: the root window, or a window's named pixmap.
        var drawable: xcb_drawable_t
        /// Watched by Damage, and the pointer's position is relative to it.
        var window: xcb_window_t
        /// The rectangle grabbed, in the window's (and the drawable's) coordinates.
        var region: PixelRect
    }

    private(set) var grabber: ScreenGrabber
    /// What is captured.
    private(set) var target: Target
    /// `nil` when every frame is grabbed whole (`--constant-fps`, or a server without Damage).
    private(set) var damage: DamageTracker?
    let cursor: CursorOverlay?
    /// Where the pointer is, asked with a grab when the cursor is drawn or `report` was read since
    /// the grab before (a query is a round trip, with libxcb's allocations).
    let pointer: PointerWatch
    /// Where the pointer was at the last grab, in the target's pixels, and the clicks so far;
    /// `nil` when it is on another screen or was not asked.
    var report: PointerReport? {
        reportRead = true
        return lastReport
    }
    private var lastReport: PointerReport?
    private var reportRead = false
    private var clicks: UInt64 = 0
    /// Areas painted black in every frame (`--mask-window`), in the target window's coordinates;
    /// set by the capture before a grab. Every buffer holds them painted: where they were and
    /// where they are must be grabbed again in each when they move.
    var masks: [PixelRect] = [] {
        didSet {
            guard masks != oldValue else { return }
            masksMoved = true
            damage?.markStale(rows(of: oldValue + masks))
        }
    }
    private var masksMoved = false
    private let tracksDamage: Bool
    /// Where the pointer was last, to see that the cursor drawn in must move.
    private var lastPointer: PointerWatch.Position?
    /// The pixels under the cursor in each buffer.
    private var underlays: Underlays
    /// The rows drawn on (masks, cursor) in the last frame handed out.
    private var lastDrawnRows = RowBands()
    /// The rows of the last frame handed out, for the next grab to be held against; empty before
    /// the first frame and after a change of target.
    private var handedOut = RowFingerprints()
    private let connection: XConnection
    private let allowSharedMemory: Bool
    private let bufferCount: Int
    private let logger: Logger

    /// - Parameter drawCursor: `--cursor`; ignored (with a notice) when the server lacks XFixes.
    /// - Parameter tracksDamage: grab only what changed; `false` grabs every frame whole (`--constant-fps`).
    /// - Parameter bufferCount: frames that may be in flight at once across every branch.
    init(connection: XConnection, target: Target, allowSharedMemory: Bool, drawCursor: Bool, tracksDamage: Bool,
         bufferCount: Int, logger: Logger) {
        self.connection = connection
        self.target = target
        self.allowSharedMemory = allowSharedMemory
        self.tracksDamage = tracksDamage
        self.bufferCount = bufferCount
        self.logger = logger
        grabber = ScreenGrabber(connection: connection, drawable: target.drawable, region: target.region,
                                allowSharedMemory: allowSharedMemory, bufferCount: bufferCount, logger: logger)
        underlays = Underlays(bufferCount: bufferCount)
        cursor = drawCursor ? CursorOverlay(connection: connection) : nil
        if drawCursor && cursor == nil {
            logger.notice("the X server has no XFixes extension; capturing without the cursor")
        }
        pointer = PointerWatch(connection: connection)
        damage = tracksDamage
            ? DamageTracker(connection: connection, window: target.window, region: target.region,
                            bufferCount: bufferCount) : nil
        if tracksDamage && damage == nil {
            logger.notice("the X server has no Damage extension; grabbing every frame whole")
        }
    }

    /// Grabs `target` from now on, into new buffers (frames in flight keep their old ones); the
    /// next frame counts as new everywhere.
    func retarget(_ target: Target) {
        self.target = target
        grabber = ScreenGrabber(connection: connection, drawable: target.drawable, region: target.region,
                                allowSharedMemory: allowSharedMemory, bufferCount: bufferCount, logger: logger)
        // A picture of another size, or of another window, is not compared.
        handedOut.forget()
        underlays.forget()
        lastDrawnRows = RowBands()
        damage = tracksDamage
            ? DamageTracker(connection: connection, window: target.window, region: target.region,
                            bufferCount: bufferCount) : nil
    }

    /// Whether a change of the picture comes as an event (damage, a device moved the pointer, the
    /// cursor's new picture), so that a loop may wait for one instead of looking at every slot. A
    /// warp (`xdotool mousemove`, a remote's input) moves no device: the wait's timeout finds it.
    var saysWhenItChanges: Bool {
        let pointerSaid = pointer.saysWhenItMoves && target.window == connection.root
        return damage != nil && masks.isEmpty && (cursor == nil || pointerSaid)
    }

    /// Whether an event since the last grab says the picture may have changed.
    var mayHaveChanged: Bool {
        damage?.isPending != false || masksMoved || cursor?.stale == true || (cursor != nil && pointer.mayHaveMoved)
    }

    /// Takes an event the server sent, if it is the cursor's, the damage's or a click.
    func handle(_ event: UnsafePointer<xcb_generic_event_t>) {
        let type = event.pointee.response_type & 0x7F
        if let cursor, type == cursor.cursorNotifyEvent { cursor.stale = true }
        if let damage, type == damage.notifyEvent { damage.isPending = true }
        pointer.handle(event)
    }

    /// Grabs one frame into a free buffer, when the picture changed or `evenIfUnchanged`.
    /// - Throws: when the grab failed; the buffer went back to the pool and counts as stale.
    func grab(sequence: UInt64, time: UInt64, slotTime: UInt64, evenIfUnchanged: Bool)
        throws(X11RequestError) -> CaptureOutcome {
        let asksPointer = cursor != nil || reportRead
        reportRead = false
        let pointerCookie = asksPointer ? pointer.request(relativeTo: target.window) : nil
        var looks = damage == nil || evenIfUnchanged
        // Every damage report is collected here, once a slot, however many came since the last.
        let damaged = damage.map { $0.isPending && !$0.collect().isEmpty } ?? false
        if damaged { looks = true }
        let position = pointerCookie.flatMap { pointer.position($0) }
        let cursorChanged = cursor?.stale == true
        if cursor != nil && (position != lastPointer || cursorChanged) { looks = true }
        keepReport(position)
        if masksMoved { looks = true }
        guard looks else { return .unchanged }
        guard let buffer = grabber.pool.acquire() else { return .busy }
        let region = grabber.region
        // What was drawn into this buffer last goes: its rows hold the picture as grabbed then.
        underlays.restore(into: buffer, size: region.size, bytesPerRow: grabber.bytesPerRow)
        // A buffer from the pool needs only the rows that changed since it was last filled.
        let grabbedRows = damage.map { $0.takeStaleRows(of: buffer.index) }
        do {
            try grabber.grab(into: buffer, rows: grabbedRows)
        } catch {
            buffer.share(with: 0)
            damage?.markStale(RowBands(0..<region.height), onlyIn: buffer.index)
            throw error
        }
        var frame = CapturedFrame(buffer: buffer, size: region.size, bytesPerRow: grabber.bytesPerRow,
                                  captureTime: time, slotTime: slotTime, sequence: sequence)
        // The masks need no grab again: painted alike in every frame, they change nothing unless
        // they move. So the rows of this buffer not grabbed now hold them already.
        if !masks.isEmpty { PrivacyMasks.paint(masks, into: frame, showing: region, rows: grabbedRows) }
        // The cursor drawn in looks as in the last frame unless it moved or changed its picture.
        let redrawn = position != lastPointer || cursorChanged
        (lastPointer, masksMoved) = (position, false)
        let drawn = draw(into: frame, showing: region, pointer: position)
        let previousDrawn = lastDrawnRows
        lastDrawnRows = drawn
        if damage != nil {
            if handedOut.isEmpty {
                handedOut.forget()
                handedOut.remember(buffer, height: region.height, bytesPerRow: grabber.bytesPerRow)
            } else {
                // Outside the rows just grabbed, this buffer holds the picture as the last frame
                // handed out showed it; so do the rows drawn on, unless the drawing changed.
                var compared = grabbedRows ?? RowBands(0..<region.height)
                if redrawn || drawn != previousDrawn {
                    compared.formUnion(previousDrawn)
                    compared.formUnion(drawn)
                }
                frame.changedRows = handedOut.rowsChanged(in: buffer, among: compared)
            }
            if frame.changedRows?.isEmpty == true && !evenIfUnchanged {
                buffer.share(with: 0)
                return damaged ? .repainted : .unchanged
            }
        }
        return .frame(frame)
    }

    /// Paints `areas` black in `frame`, just grabbed, too: windows to mask that moved or appeared
    /// while it was grabbed, which the next grab masks by itself.
    func cover(_ areas: [PixelRect], in frame: inout CapturedFrame) {
        let rows = PrivacyMasks.paint(areas, into: frame, showing: grabber.region)
        frame.changedRows?.formUnion(rows)
        masks = areas
    }

    /// The rows of the part grabbed that `areas` cover.
    private func rows(of areas: [PixelRect]) -> RowBands {
        let region = grabber.region
        var rows = RowBands()
        for area in areas { rows.insert((area.y - region.y)..<(area.maxY - region.y)) }
        return rows.clamped(toHeight: region.height)
    }

    /// Draws the cursor; what it covers is kept first, to be put back before the buffer is
    /// filled again.
    /// - Returns: the rows drawn on.
    private func draw(into frame: CapturedFrame, showing region: PixelRect,
                      pointer: PointerWatch.Position?) -> RowBands {
        guard let cursor, let covered = cursor.bounds(in: region, at: pointer) else { return RowBands() }
        underlays.keep(covered, of: frame)
        return cursor.draw(into: frame, region: region, at: pointer).map { RowBands($0) } ?? RowBands()
    }

    /// Keeps where the pointer is for `pointer`'s readers: in the target's pixels, with the clicks
    /// so far and the cursor's picture (drawn in already, to be drawn again over a highlight).
    private func keepReport(_ position: PointerWatch.Position?) {
        if pointer.takeClick() { clicks += 1 }
        guard let position, position.onScreen else {
            lastReport = nil
            return
        }
        lastReport = PointerReport(x: position.x - target.region.x, y: position.y - target.region.y,
                               cursor: cursor?.picture, cursorInPicture: true, clicks: clicks)
    }
}
