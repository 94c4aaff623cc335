import PodiumCore
@testable import PodiumX11
import Testing

struct RowFingerprintsTests {
    /// Rows of 64 bytes are sampled at bytes 0, 16, 32 and 56, 8 bytes each; byte 10 is not sampled.
    static let bytesPerRow = 64
    static let height = 100
    static let everyRow = RowBands(0..<height)

    /// A picture of `height` rows, each filled with its own row number.
    func picture() -> FrameBuffer {
        let storage = HeapStorage(capacity: Self.bytesPerRow * Self.height)
        for row in 0..<Self.height {
            (storage.bytes + row * Self.bytesPerRow).initializeMemory(as: UInt8.self, repeating: UInt8(row),
                                                                        count: Self.bytesPerRow)
        }
        return FrameBuffer(bytes: storage.bytes, capacity: Self.bytesPerRow * Self.height, index: 0, storage: storage)
    }

    func picture(changing bytes: [(row: Int, byte: Int)]) -> FrameBuffer {
        let changed = picture()
        for (row, byte) in bytes {
            changed.bytes.storeBytes(of: 0xFF, toByteOffset: row * Self.bytesPerRow + byte, as: UInt8.self)
        }
        return changed
    }

    func list(_ bands: RowBands) -> [Range<Int>] { (0..<bands.count).map { bands[$0] } }

    @Test func findsTheRowsWhereOneUnsampledByteChanged() {
        var fingerprints = RowFingerprints()
        #expect(fingerprints.isEmpty)
        let first = picture()
        fingerprints.remember(first, height: Self.height, bytesPerRow: Self.bytesPerRow)
        #expect(list(fingerprints.rowsChanged(in: picture(), among: Self.everyRow)) == [],
                "the same pixels in another buffer")
        let next = picture(changing: [(10, 10), (11, 10), (99, 10)])
        #expect(list(fingerprints.rowsChanged(in: next, among: Self.everyRow)) == [10..<12, 99..<100])
        #expect(list(fingerprints.rowsChanged(in: next, among: Self.everyRow)) == [],
                "the changed rows were taken in: the same picture again is unchanged")
        #expect(list(fingerprints.rowsChanged(in: first, among: Self.everyRow)) == [10..<12, 99..<100],
                "and the old picture is a change back")
    }

    @Test func afterAChangeEverywhereSamplesComeFirstAndTheirRowsCountOnceMore() {
        var fingerprints = RowFingerprints()
        fingerprints.remember(picture(), height: Self.height, bytesPerRow: Self.bytesPerRow)
        let everywhere = picture(changing: (0..<Self.height).map { (row: $0, byte: 10) })
        #expect(list(fingerprints.rowsChanged(in: everywhere, among: Self.everyRow)) == [0..<Self.height])
        // Most rows changed: the next look starts from the samples.
        let moved = picture(changing: (0..<Self.height).map { (row: $0, byte: 10) } + [(20, 0), (30, 17), (40, 63)])
        let sampled = [20..<21, 30..<31, 40..<41]
        #expect(list(fingerprints.rowsChanged(in: moved, among: Self.everyRow)) == sampled)
        #expect(list(fingerprints.rowsChanged(in: moved, among: Self.everyRow)) == sampled,
                "not fingerprinted when the samples differed: the same picture counts once more")
        #expect(list(fingerprints.rowsChanged(in: moved, among: Self.everyRow)) == [])
        // Few rows changed: fingerprints first again, exact from the first look.
        let single = picture(changing: (0..<Self.height).map { (row: $0, byte: 10) } + [(50, 0)])
        #expect(list(fingerprints.rowsChanged(in: single, among: Self.everyRow)) == sampled + [50..<51])
        #expect(list(fingerprints.rowsChanged(in: single, among: Self.everyRow)) == [])
    }

    @Test func looksOnlyAtTheRowsItIsGivenWithinThePicture() {
        var fingerprints = RowFingerprints()
        fingerprints.remember(picture(), height: Self.height, bytesPerRow: Self.bytesPerRow)
        let next = picture(changing: [(5, 10), (50, 10)])
        var among = RowBands(40..<60)
        among.insert(90..<500)
        #expect(list(fingerprints.rowsChanged(in: next, among: among)) == [50..<51],
                "row 5 is not among the rows looked at, rows past 100 are not there")
        #expect(list(fingerprints.rowsChanged(in: next, among: RowBands(0..<10))) == [5..<6])
        fingerprints.forget()
        #expect(fingerprints.isEmpty)
        #expect(fingerprints.rowsChanged(in: next, among: Self.everyRow).isEmpty,
                "nothing remembered, nothing to hold the picture against")
    }
}
