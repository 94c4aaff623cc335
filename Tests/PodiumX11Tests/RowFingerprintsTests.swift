import PodiumCore
@testable import PodiumX11
import Testing

struct RowFingerprintsTests {
    static let bytesPerRow = 64
    static let height = 100

    /// A picture of `height` rows, each filled with its own row number.
    func picture() -> FrameBuffer {
        let storage = HeapStorage(capacity: Self.bytesPerRow * Self.height)
        for row in 0..<Self.height {
            (storage.bytes + row * Self.bytesPerRow).initializeMemory(as: UInt8.self, repeating: UInt8(row),
                                                                        count: Self.bytesPerRow)
        }
        return FrameBuffer(bytes: storage.bytes, capacity: Self.bytesPerRow * Self.height, index: 0, storage: storage)
    }

    func list(_ bands: RowBands) -> [Range<Int>] { (0..<bands.count).map { bands[$0] } }

    @Test func findsTheRowsWhereOneByteChanged() {
        var fingerprints = RowFingerprints()
        #expect(fingerprints.isEmpty)
        let first = picture()
        fingerprints.remember(first, height: Self.height, bytesPerRow: Self.bytesPerRow)
        #expect(list(fingerprints.rowsChanged(in: picture(), among: RowBands(0..<Self.height))) == [],
                "the same pixels in another buffer")
        let next = picture()
        next.bytes.storeBytes(of: 0xFF, toByteOffset: 10 * Self.bytesPerRow + 63, as: UInt8.self)
        next.bytes.storeBytes(of: 0xFF, toByteOffset: 11 * Self.bytesPerRow, as: UInt8.self)
        next.bytes.storeBytes(of: 0xFF, toByteOffset: 99 * Self.bytesPerRow + 7, as: UInt8.self)
        #expect(list(fingerprints.rowsChanged(in: next, among: RowBands(0..<Self.height))) == [10..<12, 99..<100])
        #expect(list(fingerprints.rowsChanged(in: next, among: RowBands(0..<Self.height))) == [],
                "the changed rows were taken in: the same picture again is unchanged")
        #expect(list(fingerprints.rowsChanged(in: first, among: RowBands(0..<Self.height))) == [10..<12, 99..<100],
                "and the old picture is a change back")
    }

    @Test func looksOnlyAtTheRowsItIsGivenWithinThePicture() {
        var fingerprints = RowFingerprints()
        fingerprints.remember(picture(), height: Self.height, bytesPerRow: Self.bytesPerRow)
        let next = picture()
        next.bytes.storeBytes(of: 0xFF, toByteOffset: 5 * Self.bytesPerRow, as: UInt8.self)
        next.bytes.storeBytes(of: 0xFF, toByteOffset: 50 * Self.bytesPerRow, as: UInt8.self)
        var among = RowBands(40..<60)
        among.insert(90..<500)
        #expect(list(fingerprints.rowsChanged(in: next, among: among)) == [50..<51],
                "row 5 is not among the rows looked at, rows past 100 are not there")
        #expect(list(fingerprints.rowsChanged(in: next, among: RowBands(0..<10))) == [5..<6])
        fingerprints.forget()
        #expect(fingerprints.isEmpty)
        #expect(fingerprints.rowsChanged(in: next, among: RowBands(0..<Self.height)).isEmpty,
                "nothing remembered, nothing to hold the picture against")
    }
}
