import PodiumCore
import PodiumCoreTesting
import Testing

/// A library's thread leaves frames, the capture thread takes one a slot: the newest for a
/// screen, and for a source with its own rate (a camera) the older of two that met in one slot's
/// time, so none is lost to the grid's phase.
@Suite struct FrameInboxTests {
    static let size = PixelSize(width: 4, height: 4)

    /// Delivers a frame that changed `rows`, numbered `mark` (its first byte).
    static func deliver(_ inbox: FrameInbox, mark: UInt8, rows: Range<Int>) throws {
        let buffer = try #require(inbox.freeBuffer(for: size))
        buffer.bytes.storeBytes(of: mark, as: UInt8.self)
        inbox.deliver(buffer, size: size, rows: RowBands(rows))
    }

    /// The frame taken now: its mark and its changed rows; given back at once.
    static func take(_ inbox: FrameInbox) -> (mark: UInt8, rows: RowBands?)? {
        guard let arrived = inbox.take() else { return nil }
        defer { arrived.buffer.share(with: 0) }
        return (arrived.buffer.bytes.load(as: UInt8.self), arrived.rows)
    }

    @Test func aScreensInboxKeepsTheNewestWithBothFramesChanges() throws {
        let inbox = FrameInbox(bufferCount: 3, clock: FakeClock())
        try Self.deliver(inbox, mark: 1, rows: 0..<1)
        try Self.deliver(inbox, mark: 2, rows: 2..<3)
        let taken = try #require(Self.take(inbox))
        #expect(taken.mark == 2)
        var both = RowBands(0..<1)
        both.insert(2..<3)
        #expect(taken.rows == both)
        #expect(Self.take(inbox) == nil)
    }

    @Test func aCamerasTwoFramesInOneSlotGoOneASlot() throws {
        let inbox = FrameInbox(bufferCount: 4, clock: FakeClock(), holdsOneBack: true)
        try Self.deliver(inbox, mark: 1, rows: 0..<1)
        try Self.deliver(inbox, mark: 2, rows: 1..<2)
        #expect(Self.take(inbox)?.mark == 1)
        #expect(Self.take(inbox)?.mark == 2, "the newer at the next slot, not lost")
        #expect(Self.take(inbox) == nil)
        // Three in one slot's time: the oldest goes, its changes counted by the one after it.
        try Self.deliver(inbox, mark: 3, rows: 0..<1)
        try Self.deliver(inbox, mark: 4, rows: 1..<2)
        try Self.deliver(inbox, mark: 5, rows: 3..<4)
        let fourth = try #require(Self.take(inbox))
        var both = RowBands(0..<1)
        both.insert(1..<2)
        #expect(fourth.mark == 4 && fourth.rows == both, "\(fourth)")
        #expect(Self.take(inbox)?.mark == 5)
        // Every buffer came back: the pool lends all four again.
        let buffers = (0..<4).compactMap { _ in inbox.freeBuffer(for: Self.size) }
        #expect(buffers.count == 4)
        buffers.forEach { inbox.giveBack($0) }
    }
}
