import PodiumCore
import Testing

@Suite struct RenditionOptionTests {
    @Test func encodingFieldsAreSplitOffAnyOutput() throws {
        let (file, request) = try RenditionRequest.split("b.mkv?size=640x360&bitrate=500k")
        #expect(file == "b.mkv")
        #expect(request == RenditionRequest(size: PixelSize(width: 640, height: 360),
                                            bitrate: Bitrate(bitsPerSecond: 500_000)))
        // The output keeps the fields that are its own, in order.
        let (udp, codec) = try RenditionRequest.split("udp://h:5000?ttl=2&codec=hevc&pkt_size=188&preset=fast")
        #expect(udp == "udp://h:5000?ttl=2&pkt_size=188")
        #expect(codec == RenditionRequest(codec: .hevc, preset: "fast"))
        #expect(try RenditionRequest.split("talk.mkv").rendition.isEmpty)
        #expect(try RenditionRequest.split("b.mkv?max-size=1280").rendition.scale(or: .source) == .longestSide(1280))
        #expect(try RenditionRequest.split("b.mkv").rendition.scale(or: .factor(0.5)) == .factor(0.5))
    }

    @Test func theDefaultLadderFollowsTheSource() throws {
        let options = HLSOptions()
        let full = try options.variants(for: PixelSize(width: 1920, height: 1080), framesPerSecond: 30).variants
        #expect(full.map(\.size) == [PixelSize(width: 1920, height: 1080), PixelSize(width: 1280, height: 720),
                                     PixelSize(width: 640, height: 360)])
        #expect(full.map(\.name) == ["1080p", "720p", "360p"])
        // 0.1 bit a pixel a frame unless asked, to 100k: 6.2 Mbit/s for 1080p30.
        #expect(full.map(\.bitrate.description) == ["6.2M", "2.8M", "700k"])
        // A 720p source has no 720p rung below it.
        let small = try options.variants(for: PixelSize(width: 1280, height: 720), framesPerSecond: 30).variants
        #expect(small.map(\.name) == ["720p", "360p"])
        // Odd sides of a 4:3 source round to even.
        let odd = try options.variants(for: PixelSize(width: 1025, height: 769), framesPerSecond: 30).variants
        #expect(odd.map(\.size) == [PixelSize(width: 1024, height: 768), PixelSize(width: 960, height: 720),
                                    PixelSize(width: 480, height: 360)])
    }

    @Test func aLadderAskedForDropsRungsLargerThanTheSource() throws {
        var options = HLSOptions()
        options.ladder = try LadderRung.list(parsing: "2160p,1920x1080@6M,640x360@600k")
        let planned = try options.variants(for: PixelSize(width: 1920, height: 1080), framesPerSecond: 30)
        #expect(planned.dropped.map(\.description) == ["2160p"])
        #expect(planned.variants.map(\.bitrate.description) == ["6M", "600k"])
        options.ladder = try LadderRung.list(parsing: "2160p,4000x3000")
        #expect(throws: OptionParseError.self) {
            try options.variants(for: PixelSize(width: 1920, height: 1080), framesPerSecond: 30)
        }
    }

    @Test func codecsAttributesComeFromTheParameterSets() {
        // x264's SPS for High 4.0 (Annex B, a four-byte start code), then a PPS.
        let avc: [UInt8] = [0, 0, 0, 1, 0x67, 0x64, 0x00, 0x28, 0xAC, 0xD9, 0, 0, 0, 1, 0x68, 0xEB, 0xE3]
        #expect(stream(.h264, avc).codecsAttribute == "avc1.640028")
        // avcC keeps the same three bytes after its version.
        #expect(stream(.h264, [1, 0x42, 0xC0, 0x1E, 0xFF]).codecsAttribute == "avc1.42c01e")
        #expect(stream(.h264, []).codecsAttribute == nil)
        // An HEVC SPS of Main, level 3.1 (93), main tier, constraint byte 0x90 (progressive, frame-only).
        let hevc: [UInt8] = [0, 0, 1, 0x42, 0x01, 0x01, 0x01, 0x60, 0x00, 0x00, 0x03, 0x00, 0x90, 0x00, 0x00, 0x03,
                             0x00, 0x00, 0x03, 0x00, 0x5D, 0xA0]
        #expect(stream(.hevc, hevc).codecsAttribute == "hvc1.1.6.L93.90")
    }

    private func stream(_ codec: VideoCodec, _ extradata: [UInt8]) -> StreamDescription {
        let video = StreamDescription.Video(codec: codec, size: PixelSize(width: 640, height: 360), framesPerSecond: 30,
                                            colors: ColorTags(range: .limited))
        return StreamDescription(id: 0, video: video, timeScale: 1_000_000, extradata: extradata)
    }

    @Test func masterPlaylistAndMeasuredBandwidth() {
        let variant = HLSPlaylist.Variant(uri: "live_360p.m3u8", bandwidth: 880_000, averageBandwidth: 800_000,
                                          size: PixelSize(width: 640, height: 360), framesPerSecond: 30,
                                          codecs: "avc1.42c01e")
        #expect(HLSPlaylist.master([variant]) == """
            #EXTM3U
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-STREAM-INF:BANDWIDTH=880000,AVERAGE-BANDWIDTH=800000,CODECS="avc1.42c01e",\
            RESOLUTION=640x360,FRAME-RATE=30.000
            live_360p.m3u8

            """)
        let media = "#EXTM3U\n#EXTINF:1.000000,\na_00000.ts\n#EXTINF:0.5,\na_00001.ts\n#EXTINF:0.1,\na_00002.ts\n"
        let segments = HLSPlaylist.segments(of: media)
        #expect(segments.map(\.uri) == ["a_00000.ts", "a_00001.ts", "a_00002.ts"])
        let measured = HLSPlaylist.bandwidth(of: [(1, 100_000), (0.5, 75_000), (0.1, 50_000)])
        // The peak over whole segments (the 0.1 s stub is left out), the average over all.
        #expect(measured?.peak == 1_200_000)
        #expect(measured?.average == 225_000 * 8 * 10 / 16)
    }
}
