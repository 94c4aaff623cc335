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
    private let region: PixelRect
    /// Per buffer index, the rows (of the captured region) that changed since it was filled.
    private var stale: [Range<Int>?]

    /// - Returns: `nil` when the server lacks Damage or XFixes 2 (every frame is then grabbed whole).
    init?(connection: XConnection, region: PixelRect, bufferCount: Int) {
        guard connection.hasExtension(cxcb_damage_id()), connection.hasExtension(cxcb_xfixes_id()) else { return nil }
        // Both extensions require their version handshake before any other request.
        let fixes = try? connection.withReply({ xcb_xfixes_query_version_reply($0, xcb_xfixes_query_version($0, 4, 0), $1) }) { $0.pointee.major_version }
        let damaged = try? connection.withReply({ xcb_damage_query_version_reply($0, xcb_damage_query_version($0, 1, 1), $1) }) { $0.pointee.major_version }
        guard let fixes, fixes >= 2, damaged != nil else { return nil }
        self.connection = connection
        self.region = region
        notifyEvent = connection.firstEvent(of: cxcb_damage_id()) + UInt8(XCB_DAMAGE_NOTIFY)
        damage = connection.generateID()
        scratch = connection.generateID()
        stale = Array(repeating: 0..<region.height, count: bufferCount)
        xcb_damage_create(connection.raw, damage, connection.root, UInt8(XCB_DAMAGE_REPORT_LEVEL_NON_EMPTY.rawValue))
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
    /// - Returns: whether any of it falls in the captured region.
    func collect() -> Bool {
        isPending = false
        xcb_damage_subtract(connection.raw, damage, 0, scratch)
        let rows = try? connection.withReply({ xcb_xfixes_fetch_region_reply($0, xcb_xfixes_fetch_region($0, scratch), $1) }) { reply -> Range<Int>? in
            let rectangles = UnsafeBufferPointer(start: xcb_xfixes_fetch_region_rectangles(reply), count: Int(xcb_xfixes_fetch_region_rectangles_length(reply)))
            var band: Range<Int>?
            for rectangle in rectangles {
                let rect = PixelRect(x: Int(rectangle.x), y: Int(rectangle.y), width: Int(rectangle.width), height: Int(rectangle.height))
                guard rect.intersects(region) else { continue }
                band = Self.union(band, max(0, rect.y - region.y)..<min(region.height, rect.maxY - region.y))
            }
            return band
        }
        guard let rows else { return false }
        markStale(rows)
        return true
    }

    /// Marks rows stale in every buffer (say, where a cursor was drawn into one of them).
    func markStale(_ rows: Range<Int>, onlyIn index: Int? = nil) {
        let clamped = max(0, rows.lowerBound)..<min(region.height, max(max(0, rows.lowerBound), rows.upperBound))
        guard !clamped.isEmpty else { return }
        if let index {
            stale[index] = Self.union(stale[index], clamped)
        } else {
            for buffer in stale.indices { stale[buffer] = Self.union(stale[buffer], clamped) }
        }
    }

    /// The rows buffer `index` must grab to show the screen as it is now; they count as fresh after.
    func takeStaleRows(of index: Int) -> Range<Int>? {
        defer { stale[index] = nil }
        return stale[index]
    }

    private static func union(_ band: Range<Int>?, _ rows: Range<Int>) -> Range<Int> {
        guard let band else { return rows }
        return min(band.lowerBound, rows.lowerBound)..<max(band.upperBound, rows.upperBound)
    }
}
