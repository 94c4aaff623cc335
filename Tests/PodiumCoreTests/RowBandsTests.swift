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

    @Test func scalingMapsRowsIntoTheWindowsPicture() {
        // Without scaling, rows of the crop map one to one; rows outside it are dropped.
        #expect(list(bands([5..<10, 100..<120, 700..<710]).scaled(from: 100..<600, toHeight: 500)) == [0..<20])
        // Halving: 100..<120 is 50..<60, widened by a source row and a window row either side.
        #expect(list(bands([100..<120]).scaled(from: 0..<480, toHeight: 240)) == [48..<62])
        // Doubling: 10..<11 covers 20..<22 and 0..<1 covers 0..<2, widened likewise and clipped.
        #expect(list(bands([10..<11, 0..<1]).scaled(from: 0..<240, toHeight: 480)) == [0..<5, 17..<25])
        #expect(list(bands([239..<240]).scaled(from: 0..<240, toHeight: 480)) == [475..<480])
    }
}
