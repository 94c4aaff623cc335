import PodiumCore
import Testing

struct RowBandsTests {
    func bands(_ ranges: [Range<Int>]) -> RowBands {
        var bands = RowBands()
        for range in ranges { bands.insert(range) }
        return bands
    }

    func list(_ bands: RowBands) -> [Range<Int>] { (0..<bands.count).map { bands[$0] } }

    @Test func insertsSortedAndJoinsWhatTouches() {
        #expect(list(bands([50..<60, 0..<10, 20..<30])) == [0..<10, 20..<30, 50..<60])
        #expect(list(bands([0..<10, 10..<20])) == [0..<20], "adjacent bands join")
        #expect(list(bands([0..<10, 20..<30, 5..<25])) == [0..<30], "a band over two joins them")
        #expect(list(bands([0..<10, 3..<4, 0..<0])) == [0..<10])
        #expect(bands([]).isEmpty && bands([5..<5]).isEmpty)
        #expect(bands([0..<10, 20..<25]).rowCount == 15)
    }

    @Test func aFifthBandMergesTheClosestPair() {
        let full = bands([0..<10, 100..<110, 200..<210, 300..<310])
        var more = full
        more.insert(215..<220)
        #expect(list(more) == [0..<10, 100..<110, 200..<220, 300..<310])
        more.insert(500..<510)
        #expect(more.count == RowBands.capacity)
        #expect(list(more) == [0..<10, 100..<110, 200..<310, 500..<510])
        // Every row inserted is still covered.
        for row in [5, 105, 205, 217, 305, 505] { #expect(list(more).contains { $0.contains(row) }, "\(row)") }
    }

    @Test func unionAndClamping() {
        var bands = bands([0..<10])
        bands.formUnion(self.bands([40..<50, 5..<15]))
        #expect(list(bands) == [0..<15, 40..<50])
        #expect(list(self.bands([-5..<3, 470..<500, 600..<700]).clamped(toHeight: 480)) == [0..<3, 470..<480])
    }
}
