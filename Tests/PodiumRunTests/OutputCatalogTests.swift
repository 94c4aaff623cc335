import Foundation
import PodiumCore
import PodiumMedia
import PodiumRun
import PodiumWeb
import PodiumWebRTC
import PodiumX11
import Testing

/// The output catalog, in-process: each kind reads its own text (and refuses what it cannot
/// honour, without a process or a display), says what it needs of the encoding, and is planned.
struct OutputCatalogTests {
    /// A libavformat kind, as the catalog reads it.
    func target(_ text: String) throws -> MuxerTarget {
        try #require(OutputCatalog.destination(parsing: text).output as? MuxerTarget)
    }

    @Test func filesAndNetworkOutputs() throws {
        #expect(try MuxerTarget(parsing: "out.mkv") == .file(path: "out.mkv", container: .matroska, split: nil))
        #expect(try MuxerTarget(parsing: "/tmp/a.b/clip.MP4")
                == .file(path: "/tmp/a.b/clip.MP4", container: .mp4, split: nil))
        #expect(try MuxerTarget(parsing: "x.ts") == .file(path: "x.ts", container: .mpegts, split: nil))
        #expect(try MuxerTarget(parsing: "x.flv") == .file(path: "x.flv", container: .flv, split: nil))
        #expect(try MuxerTarget(parsing: "udp://127.0.0.1:5000") == .udp(host: "127.0.0.1", port: 5000))
        #expect(try MuxerTarget(parsing: "tcp://localhost:9000") == .tcp(host: "localhost", port: 9000))
        #expect(try MuxerTarget(parsing: "tcp://0.0.0.0:9000?listen") == .tcpListen(host: "0.0.0.0", port: 9000,
                                                                                  maxClients: 16))
        #expect(try MuxerTarget(parsing: "tcp://[::1]:9000?listen&max=3") == .tcpListen(host: "::1", port: 9000,
                                                                                     maxClients: 3))
        #expect(try target("tcp://[::1]:9000?listen&max=3").description == "tcp://[::1]:9000?listen&max=3")
        for bad in ["tcp://h:1?max=3", "tcp://h:1?listen&max=0", "tcp://h:1?listen&max=abc", "tcp://h:1?listen&ttl=3",
                    "tcp://h:1?listen=1", "tcp://h:1?bogus"] {
            #expect(throws: OptionParseError.self, "\(bad)") { try OutputCatalog.destination(parsing: bad) }
        }
        #expect(try MuxerTarget(parsing: "tcp://h:1?retry=off") == .tcp(host: "h", port: 1, retries: false))
        #expect(try target("tcp://h:1?retry=off").description == "tcp://h:1?retry=off")
        #expect(try MuxerTarget(parsing: "udp://239.0.0.1:5000?ttl=4&pkt_size=188")
            == .udp(host: "239.0.0.1", port: 5000, options: .init(ttl: 4, packetSize: 188)))
        #expect(try target("udp://[ff02::1]:5000?ttl=1").description == "udp://[ff02::1]:5000?ttl=1")
        #expect(try target("udp://h:5000?pkt_size=1316").description == "udp://h:5000")
        for bad in ["udp://239.0.0.1:1?ttl=0", "udp://239.0.0.1:1?ttl=256", "udp://10.0.0.1:1?ttl=4",
                    "udp://h:1?pkt_size=1000", "udp://h:1?pkt_size=65612", "udp://h:1?pkt_size=", "udp://h:1?",
                    "udp://h:1?pkt_size=188&pkt_size=376", "tcp://h:1?retry=1", "tcp://h:1?listen&retry=off"] {
            #expect(throws: OptionParseError.self, "\(bad)") { try OutputCatalog.destination(parsing: bad) }
        }
        #expect(try MuxerTarget(parsing: "udp://[::1]:5000") == .udp(host: "::1", port: 5000))
        #expect(try target("udp://[::1]:5000").description == "udp://[::1]:5000")
        for bad in ["out", "out.avi", ".mkv", "udp://host", "udp://host:0", "udp://host:70000", "udp://:5000",
                    "tcp://h:1?foo", "ftp://h:1", "udp://h:5000?x=1"] {
            #expect(throws: OptionParseError.self, "\(bad)") { try OutputCatalog.destination(parsing: bad) }
        }
    }

    @Test func pushesToMediaServers() throws {
        var srt = MuxerTarget.SRTOptions()
        srt.passphrase = "0123456789"
        srt.keyLength = 32
        srt.latencyMilliseconds = 200
        srt.streamID = "#!::r=live/talk,m=publish"
        let full = "srt://h:9000?passphrase=0123456789&pbkeylen=32&latency=200&streamid=%23!::r=live/talk,m=publish"
        #expect(try MuxerTarget(parsing: full) == .srt(host: "h", port: 9000, options: srt))
        #expect(try target(full).description
            == "srt://h:9000?passphrase=••••&pbkeylen=32&latency=200&streamid=••••")
        #expect(try target(full).secrets == ["0123456789", "#!::r=live/talk,m=publish"])
        #expect(try target("srt://h:1?streamid=publish:talk").secrets == ["publish:talk"])
        #expect(try target("srt://0.0.0.0:1?mode=listener&retry=off").description
            == "srt://0.0.0.0:1?mode=listener&retry=off")
        let youtube = try target("rtmps://a.rtmp.youtube.com/live2/abcd-efgh")
        #expect(youtube == .rtmp(.init(secure: true, host: "a.rtmp.youtube.com", app: "live2", key: "abcd-efgh")))
        #expect(youtube.description == "rtmps://a.rtmp.youtube.com/live2/••••")
        // Some servers' keys carry a query; ?retry= is Podium's own.
        let query = try target("rtmp://h:1936/app/inst/KEY?s_bl=1&retry=off&a=2")
        #expect(query == .rtmp(.init(host: "h", port: 1936, app: "app/inst", key: "KEY?s_bl=1&a=2", retries: false)))
        #expect(query.description == "rtmp://h:1936/app/inst/••••?retry=off")
        let trusting = try target("rtmps://h/a/k?ca=/etc/my%20ca.pem")
        #expect(trusting == .rtmp(.init(secure: true, host: "h", app: "a", key: "k",
                                        trustedCertificates: "/etc/my ca.pem")))
        #expect(trusting.description == "rtmps://h/a/••••?ca=/etc/my ca.pem")
        #expect(throws: OptionParseError.self) { try OutputCatalog.destination(parsing: "rtmp://h/a/k?ca=/x.pem") }
        #expect(throws: OptionParseError.self) { try OutputCatalog.destination(parsing: "rtmps://h/a/k?ca=") }
        #expect(try MuxerTarget(parsing: "rtsp://[::1]/a/b?transport=udp")
            == .rtsp(host: "::1", port: nil, path: "a/b", options: .init(transport: .udp)))
        #expect(try target("rtsp://h:8554/live").description == "rtsp://h:8554/live")
        for bad in ["srt://h", "srt://h:1?latency=-1", "srt://h:1?passphrase=short", "srt://h?mode=rendezvous",
                    "srt://h:1?mode=push", "srt://h:1?pbkeylen=20&passphrase=0123456789", "srt://h:1?pbkeylen=16",
                    "srt://h:1?streamid=", "srt://h:1?passphrase=\(String(repeating: "x", count: 80))",
                    "rtmp://h", "rtmp://h/live", "rtmp://h/live/", "rtmp:///live/k", "rtmp://h//k",
                    "rtmp://h/live/k?retry=no", "rtsp://h", "rtsp://h/", "rtsp://h:1/x?transport=quic",
                    "rtsp://h/x?foo=1"] {
            #expect(throws: OptionParseError.self, "\(bad)") { try OutputCatalog.destination(parsing: bad) }
        }
    }

    @Test func playlistOptions() throws {
        let mpegts = try OutputCatalog.destination(parsing: "hls/live.m3u8").output
        #expect(mpegts.needs.idleFPS == 2 && mpegts.needs.keyframeInterval == .seconds(1))
        let text = "out/live.m3u8?segment=2s&window=0&segment-type=fmp4"
        let output = try #require(OutputCatalog.destination(parsing: text).output as? HLSLadder)
        let options = output.options
        #expect(output.master == "out/live.m3u8" && output.files == ["out/live.m3u8"] && output.isLocal)
        #expect(options.segment == .seconds(2) && options.window == 0 && options.segmentType == .fmp4)
        #expect(try OutputCatalog.destination(parsing: "live.m3u8").description == "live.m3u8")
        #expect(try OutputCatalog.destination(parsing: "live.m3u8?window=3").description == "live.m3u8?window=3")
        for bad in ["live.m3u8?ladder=", "live.m3u8?ladder=720q", "live.m3u8?segment=0s", "live.m3u8?segment-type=mp4",
                    "live.m3u8?window=-1", "live.m3u8?fps=30", "live.m3u8?ladder=720p@fast"] {
            #expect(throws: OptionParseError.self, "\(bad)") { try OutputCatalog.destination(parsing: bad) }
        }
    }

    @Test func anOutputsOwnEncodingIsSplitOff() throws {
        let destination = try OutputCatalog.destination(parsing: "b.mkv?size=640x360&bitrate=500k")
        #expect(destination.output as? MuxerTarget == .file(path: "b.mkv", container: .matroska, split: nil))
        #expect(destination.description == "b.mkv?size=640x360&bitrate=500k")
    }

    @Test func badEncodingFieldsNameTheField() {
        for (text, reason) in [
            ("b.mkv?size=0x0", "?size=0x0: width and height must be positive"),
            ("b.mkv?codec=theora", "?codec=theora: expected one of"),
            ("b.mkv?bitrate=fast", "?bitrate=fast: expected a rate"),
            ("b.mkv?size=640x360&max-size=640", "pass only one of ?size= and ?max-size="),
            ("b.mkv?preset=", "?preset=: expected a preset name"),
            ("b.mkv?colour=red", "unknown option ?colour for a file"),
        ] {
            #expect(throws: OptionParseError.self, "\(text)") { try OutputCatalog.destination(parsing: text) }
            do {
                _ = try OutputCatalog.destination(parsing: text)
            } catch {
                #expect(error.reason.hasPrefix(reason) || error.reason.contains(reason), "\(text): \(error.reason)")
            }
        }
    }

    @Test func aWHIPOutputGetsAnEncoderOfItsOwn() throws {
        let whip = try #require(OutputCatalog.destination(parsing: "whip+https://sfu.example.com/whip/talk?token=T")
            .output as? any StreamOutputPlan)
        let file = try OutputCatalog.destination(parsing: "talk.mkv").output
        let plan = try EncodingPlan(outputs: [OutputRequest(file), OutputRequest(whip)], source:
                                        PixelSize(width: 1280, height: 720), fps: FrameRate(30),
                                    encode: EncodingDefaults())
        #expect(plan.encodings.count == 2, "the file keeps its own encoding")
        let webRTC = try #require(plan.encodings.first { $0.settings.webRTC })
        #expect(webRTC.settings.bitrate?.bitsPerSecond == 2_700_000 && webRTC.settings.quality == nil)
        #expect(plan.notices.contains { $0.contains("follows the network, up to 2.7Mbit/s") })
        #expect(!plan.notices.joined().contains("token=T") && !"\(whip)".contains("T?"))
        #expect(whip.secrets == ["T"] && !whip.isLocal && whip.needs.soundCodec == .opus)
        #expect(throws: OptionParseError.self) {
            try OutputCatalog.destination(parsing: "whip://sfu.example.com/whip/talk")
        }
    }

    /// What each kind asks of the encoding: codec parameters out of band for the containers that
    /// keep them there, none for MPEG-TS on the network; local outputs are the files.
    @Test func eachKindSaysWhatItNeeds() throws {
        let recording = try target("talk.mkv")
        #expect(recording.needs.globalHeader && recording.isLocal && recording.files == ["talk.mkv"])
        let datagrams = try target("udp://127.0.0.1:5000")
        #expect(!datagrams.needs.globalHeader && !datagrams.isLocal && datagrams.host == "127.0.0.1")
        #expect(try target("rtmp://h/live/KEY").needs.globalHeader)
        #expect(try target("tcp://0.0.0.0:9000?listen").files.isEmpty)
        #expect(throws: Never.self) { try target("udp://h:1").validate(codec: .h264) }
        #expect(throws: PodiumError.self) { try target("rtmp://h/live/KEY").validate(codec: .hevc) }
        #expect(throws: PodiumError.self) { try target("x.flv").validate(sound: .opus) }
    }

    /// The browser viewer and the projector window are catalog entries like the rest, known by
    /// their roles: the viewer's server offers renditions the run plans (H.264, parameters out of
    /// band, its token a secret); the window takes the pictures themselves and no encoding.
    @Test func theViewerAndTheWindowAreKindsToo() throws {
        let page = try OutputCatalog.destination(parsing: "https://0.0.0.0:8443?token=s3cret-word-for-the-room"
                                                              + "&ladder=720p,360p")
        let viewer = try #require(page.output as? any ServedOutputPlan)
        #expect(viewer.ladder?.count == 2 && viewer.needs.globalHeader && !viewer.isLocal && viewer.host == "0.0.0.0")
        #expect(viewer.secrets == ["s3cret-word-for-the-room"] && !"\(page)".contains("s3cret"))
        #expect(throws: PodiumError.self) { try viewer.validate(codec: .hevc) }
        #expect(OutputRequest.streams(of: [page]).isEmpty && ViewerRequest.viewers(of: [page]).count == 1)
        let sized = try OutputCatalog.destination(parsing: "http://:8080?size=640x360")
        #expect(sized.rendition.fields == ["size=640x360"] && "\(sized)" == "http://127.0.0.1:8080?size=640x360")
        let plan = try EncodingPlan(outputs: [], viewers: ViewerRequest.viewers(of: [page]),
                                    source: PixelSize(width: 1280, height: 720), fps: FrameRate(30),
                                    encode: EncodingDefaults())
        #expect(plan.viewers.first?.renditions.map(\.name) == ["720p", "360p"] && plan.encodings.count == 2)

        let window = try OutputCatalog.destination(parsing: "window")
        #expect(window.window?.monitor == nil && window.output is ProjectorWindow && "\(window)" == "window")
        #expect(try OutputCatalog.destination(parsing: "window:HDMI-1").window?.monitor == .name("HDMI-1"))
        #expect(OutputRequest.streams(of: [window]).isEmpty && ViewerRequest.viewers(of: [window]).isEmpty)
        for bad in ["window?size=640x360", "window?fit=cover", "http://:8080/live", "https://:8443?key=k.pem"] {
            let error = #expect(throws: OptionParseError.self, "\(bad)") { try OutputCatalog.destination(parsing: bad) }
            #expect(error?.reason.isEmpty == false)
        }
        let unknown = #expect(throws: OptionParseError.self) { try OutputCatalog.destination(parsing: "ftp://h:1") }
        #expect(unknown?.reason.contains("window[:MONITOR]") == true && unknown?.reason.contains("http(s)://") == true)
    }

    /// What `podium stream --to` used to learn only from a process: every text a kind refuses is
    /// refused here, by the kind that reads it, with a reason.
    @Test(arguments: ["ftp://host:1", "udp://host", "udp://host:99999", "rtmp://host/live", "out.avi", "out",
                      "udp://239.1.1.1:5000?ttl=300", "udp://127.0.0.1:5000?ttl=3",
                      "udp://127.0.0.1:5000?pkt_size=1000",
                      "udp://127.0.0.1:5000?bogus=1", "tcp://127.0.0.1:9000?listen&max=0",
                      "tcp://127.0.0.1:9000?listen&max=abc", "tcp://127.0.0.1:9000?retry=maybe",
                      "srt://127.0.0.1:9000?latency=-1", "srt://127.0.0.1", "rtsp://127.0.0.1:8554/x?transport=quic",
                      "rtsp://127.0.0.1:8554", "srt://127.0.0.1:9000?bogus=1", "whip://h/x", "rtp://h:5000",
                      "whip+https://h/x?token=", "rmtp://h/live/KEY", ""])
    func unusableOutputs(_ text: String) throws {
        let error = #expect(throws: OptionParseError.self) { try OutputCatalog.destination(parsing: text) }
        #expect(error?.reason.isEmpty == false)
        #expect(error?.reason.contains("live/KEY") != true, "a stream key is never repeated")
    }
}
