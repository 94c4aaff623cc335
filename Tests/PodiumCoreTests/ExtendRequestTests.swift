import PodiumCore
import Testing

/// `podium extend`'s request: what its size argument reads, and where the monitor goes.
struct ExtendRequestTests {
    @Test func sizesPresetsAndRatesAreRead() throws {
        #expect(try ExtendRequest(parsing: "1280x800@60") == ExtendRequest(size: PixelSize(width: 1280, height: 800),
                                                                           fps: 60))
        #expect(try ExtendRequest(parsing: "iPad").size == PixelSize(width: 2048, height: 1536))
        #expect(try ExtendRequest(parsing: "720p@24").fps == 24)
        for bad in ["", "ipad@", "tablet", "640x480@0", "32x32", "9000x600", "640x480@30@30"] {
            #expect(throws: OptionParseError.self, "\(bad)") { try ExtendRequest(parsing: bad) }
        }
    }

    @Test func theMonitorGoesBesideItsNeighbourByTheRoomItTakes() {
        let neighbour = PixelRect(x: 100, y: 50, width: 1280, height: 720)
        var request = ExtendRequest(size: PixelSize(width: 2048, height: 1536))
        #expect(request.place(beside: neighbour) == PixelRect(x: 1380, y: 50, width: 2048, height: 1536))
        request.side = .leftOf
        #expect(request.place(beside: neighbour) == PixelRect(x: -1948, y: 50, width: 2048, height: 1536))
        // At scale 2 it takes half as much of the layout each way.
        request.scale = 2
        #expect(request.layoutSize == PixelSize(width: 1024, height: 768))
        #expect(request.place(beside: neighbour) == PixelRect(x: -924, y: 50, width: 1024, height: 768))
        request.side = .above
        #expect(request.place(beside: neighbour) == PixelRect(x: 100, y: -718, width: 1024, height: 768))
        request.side = .below
        request.scale = 1.5
        #expect(request.place(beside: neighbour) == PixelRect(x: 100, y: 770, width: 1365, height: 1024))
    }
}
