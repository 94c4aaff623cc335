import CXCB
import PodiumCore
import Logging

/// The grab a screen and a window share: damage-driven (nothing changed, nothing grabbed; a
/// change grabs only its rows), change-verified, with the cursor drawn in.
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
    private(set) var target: Target
    /// `nil` when every frame is grabbed whole (`--constant-fps`, or a server without Damage).
    private(set) var damage: DamageTracker?
    let cursor: CursorOverlay?
    private let tracksDamage: Bool
    /// Where the cursor was drawn last, to see that it moved.
    private var lastPointer: CursorOverlay.Position?
    /// The rows the cursor covered in the last frame handed out.
    private var lastCursorRows: Range<Int>?
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
        cursor = drawCursor ? CursorOverlay(connection: connection) : nil
        if drawCursor && cursor == nil {
            logger.notice("the X server has no XFixes extension; capturing without the cursor")
        }
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
        lastCursorRows = nil
        damage = tracksDamage
            ? DamageTracker(connection: connection, window: target.window, region: target.region,
                            bufferCount: bufferCount) : nil
    }

    /// Takes an event the server sent, if it is the cursor's or the damage's.
    func handle(eventType type: UInt8) {
        if let cursor, type == cursor.cursorNotifyEvent { cursor.stale = true }
        if let damage, type == damage.notifyEvent { damage.isPending = true }
    }

    /// Grabs one frame into a free buffer, when the picture changed or `evenIfUnchanged`.
    /// - Throws: when the grab failed; the buffer went back to the pool and counts as stale.
    func grab(sequence: UInt64, time: UInt64, slotTime: UInt64, evenIfUnchanged: Bool)
        throws(X11RequestError) -> CaptureOutcome {
        let pointerCookie = cursor?.requestPosition(relativeTo: target.window)
        var looks = damage == nil || evenIfUnchanged
        // Every damage report is collected here, once a slot, however many came since the last.
        let damaged = damage.map { $0.isPending && !$0.collect().isEmpty } ?? false
        if damaged { looks = true }
        let pointer = pointerCookie.flatMap { cursor?.position($0) }
        if pointer != lastPointer || cursor?.stale == true { looks = true }
        guard looks else { return .unchanged }
        guard let buffer = grabber.pool.acquire() else { return .busy }
        let region = grabber.region
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
        var cursorRows: Range<Int>?
        if let cursor {
            lastPointer = pointer
            cursorRows = cursor.draw(into: frame, region: region, at: pointer)
            // The cursor's rows in this buffer now differ from the picture: grab them again next time.
            if let cursorRows { damage?.markStale(RowBands(cursorRows), onlyIn: buffer.index) }
        }
        let previousCursorRows = lastCursorRows
        lastCursorRows = cursorRows
        if damage != nil {
            if handedOut.isEmpty {
                handedOut.remember(buffer, height: region.height, bytesPerRow: grabber.bytesPerRow)
            } else {
                // Outside the rows just grabbed and the cursor's, this buffer holds the picture as
                // the last frame handed out showed it.
                var compared = grabbedRows ?? RowBands(0..<region.height)
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
}
