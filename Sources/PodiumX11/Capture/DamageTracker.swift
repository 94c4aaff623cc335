import CXCB
import PodiumCore
#if canImport(Glibc)
import Glibc
#endif

/// What changed on screen, from the X server's Damage extension: a screen that does not change
/// costs no grab at all, and a change grabs only the rows it touched.
///
/// The server says once that damage is waiting (report level non-empty, no event per drawing);
/// `collect` then takes the damaged rectangles and clears them in one round trip. Each capture
/// buffer remembers the rows that changed since it was last filled, so a buffer coming back from
/// the pool is brought up to date by grabbing just those rows.
/// Not thread-safe: confine to the capture thread.
final class DamageTracker {
    /// The event that says damage is waiting.
    let notifyEvent: UInt8
    /// Set by that event; cleared by `collect`.
    var isPending = true
    private let connection: XConnection
    private let damage: xcb_damage_damage_t
    private let scratch: xcb_xfixes_region_t
    /// The rectangle watched, in the window's coordinates.
    let region: PixelRect
    /// Per buffer index, the rows (of the captured region) that changed since it was filled.
    private var stale: [RowBands]

    /// - Parameters:
    ///   - window: the window whose drawing is watched (the root by default); `region` and the
    ///     rows reported are in its coordinates.
    /// - Returns: `nil` when the server lacks Damage or XFixes 2 (every frame is then grabbed whole).
    init?(connection: XConnection, window: xcb_window_t? = nil, region: PixelRect, bufferCount: Int) {
        guard connection.hasExtension(cxcb_damage_id()), connection.hasExtension(cxcb_xfixes_id()) else { return nil }
        // Both extensions require their version handshake before any other request.
        let fixes = try? connection.withReply({
            xcb_xfixes_query_version_reply($0, xcb_xfixes_query_version($0, 4, 0), $1)
        }) { $0.pointee.major_version }
        let damaged = try? connection.withReply({
            xcb_damage_query_version_reply($0, xcb_damage_query_version($0, 1, 1), $1)
        }) { $0.pointee.major_version }
        guard let fixes, fixes >= 2, damaged != nil else { return nil }
        self.connection = connection
        self.region = region
        notifyEvent = connection.firstEvent(of: cxcb_damage_id()) + UInt8(XCB_DAMAGE_NOTIFY)
        damage = connection.generateID()
        scratch = connection.generateID()
        stale = Array(repeating: RowBands(0..<region.height), count: bufferCount)
        xcb_damage_create(connection.raw, damage, window ?? connection.root,
                          UInt8(XCB_DAMAGE_REPORT_LEVEL_NON_EMPTY.rawValue))
        xcb_xfixes_create_region(connection.raw, scratch, 0, nil)
        connection.flush()
    }

    deinit {
        xcb_damage_destroy(connection.raw, damage)
        xcb_xfixes_destroy_region(connection.raw, scratch)
        connection.flush()
    }

    /// Takes the damage the server holds and marks its rows stale in every buffer.
    ///
    /// The corresponding C functions are `xcb_damage_subtract` and `xcb_xfixes_fetch_region`.
    /// - Returns: the rows of the captured region it touched (empty when none).
    func collect() -> RowBands {
        isPending = false
        xcb_damage_subtract(connection.raw, damage, 0, scratch)
        let rows = (try? connection.withReply({
            xcb_xfixes_fetch_region_reply($0, xcb_xfixes_fetch_region($0, scratch), $1)
        }) { reply in
            let rectangles = UnsafeBufferPointer(start: xcb_xfixes_fetch_region_rectangles(reply),
                                                 count: Int(xcb_xfixes_fetch_region_rectangles_length(reply)))
            var bands = RowBands()
            for rectangle in rectangles {
                let rect = PixelRect(x: Int(rectangle.x), y: Int(rectangle.y), width: Int(rectangle.width),
                                     height: Int(rectangle.height))
                guard rect.intersects(region) else { continue }
                bands.insert((rect.y - region.y)..<(rect.maxY - region.y))
            }
            return bands.clamped(toHeight: region.height)
        }) ?? RowBands()
        markStale(rows)
        return rows
    }

    /// Marks rows stale in every buffer, or in one (say, where a cursor was drawn into it).
    func markStale(_ rows: RowBands, onlyIn index: Int? = nil) {
        let clamped = rows.clamped(toHeight: region.height)
        guard !clamped.isEmpty else { return }
        if let index {
            stale[index].formUnion(clamped)
        } else {
            for buffer in stale.indices { stale[buffer].formUnion(clamped) }
        }
    }

    /// The rows buffer `index` must grab to show the screen as it is now; they count as fresh after.
    func takeStaleRows(of index: Int) -> RowBands {
        defer { stale[index] = RowBands() }
        return stale[index]
    }
}
