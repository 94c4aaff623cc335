import PodiumCore
import Testing

@Suite struct OptionParsingTests {
    @Test func sizes() throws {
        #expect(try PixelSize(parsing: "1280x720") == PixelSize(width: 1280, height: 720))
        #expect(try PixelSize(parsing: "640X480") == PixelSize(width: 640, height: 480))
        for bad in ["0x0", "abc", "1280", "1280x", "x720", "-2x4", "12x34x5", "20000x10"] {
            #expect(throws: OptionParseError.self, "\(bad)") { try PixelSize(parsing: bad) }
        }
    }

    @Test func sources() throws {
        #expect(try SourceRequest(parsing: "monitor:HDMI-1") == .monitor(.name("HDMI-1")))
        #expect(try SourceRequest(parsing: "monitor:0") == .monitor(.index(0)))
        #expect(try SourceRequest(parsing: "monitor:primary") == .monitor(.primary))
        #expect(try SourceRequest(parsing: "1280x720+1920+0") == .region(PixelRect(x: 1920, y: 0, width: 1280,
                                                                                     height: 720)))
        #expect(try SourceRequest(parsing: ":1") == .display(":1"))
        #expect(try SourceRequest(parsing: ":1.0") == .display(":1.0"))
        for bad in ["monitor:", ":", ":a", ":1.2.3", "hdmi", "0", "1280x720+-1+0", "window-x"] {
            #expect(throws: OptionParseError.self, "\(bad)") { try SourceRequest(parsing: bad) }
        }
    }

    @Test func shares() throws {
        #expect(try Layout.share(parsing: "0.6", within: Layout.splitLimits) == 0.6)
        #expect(try Layout.share(parsing: "25%", within: Layout.overSizeRange) == 0.25)
        for bad in ["1.5", "95%", "abc", "", "%", "nan", "0.05"] {
            #expect(throws: OptionParseError.self, "\(bad)") {
                try Layout.share(parsing: bad, within: Layout.splitLimits)
            }
        }
    }

    @Test func evenRounding() {
        #expect(PixelSize(width: 1281, height: 721).roundedToEven == PixelSize(width: 1280, height: 720))
        #expect(PixelSize(width: 1, height: 3).roundedToEven == PixelSize(width: 2, height: 2))
    }

    @Test func scaleRequests() {
        let source = PixelSize(width: 1920, height: 1080)
        #expect(ScaleRequest.source.outputSize(for: source).size == source)
        #expect(ScaleRequest.longestSide(1280).outputSize(for: source).size == PixelSize(width: 1280, height: 720))
        #expect(ScaleRequest.longestSide(4000).outputSize(for: source).size == source, "never enlarges")
        #expect(ScaleRequest.factor(0.5).outputSize(for: source).size == PixelSize(width: 960, height: 540))
        let odd = ScaleRequest.factor(0.5).outputSize(for: PixelSize(width: 1366, height: 770))
        #expect(odd.size == PixelSize(width: 682, height: 384))
        #expect(odd.rounded)
        #expect(!ScaleRequest.size(PixelSize(width: 640, height: 360)).outputSize(for: source).rounded)
    }

    @Test func regions() throws {
        #expect(try PixelRect(parsing: "800x600+10+20") == PixelRect(x: 10, y: 20, width: 800, height: 600))
        #expect(try PixelRect(parsing: "800x600") == PixelRect(x: 0, y: 0, width: 800, height: 600))
        for bad in ["800x600+10", "800x600+a+b", "800x600+-1+0", "+10+10", "0x5+1+1"] {
            #expect(throws: OptionParseError.self, "\(bad)") { try PixelRect(parsing: bad) }
        }
        let screen = PixelRect(x: 0, y: 0, width: 1920, height: 1080)
        #expect(screen.contains(PixelRect(x: 1120, y: 480, width: 800, height: 600)))
        #expect(!screen.contains(PixelRect(x: 1121, y: 480, width: 800, height: 600)))
    }

    @Test func durations() throws {
        #expect(try Duration(parsing: "10s") == .seconds(10))
        #expect(try Duration(parsing: "500ms") == .milliseconds(500))
        #expect(try Duration(parsing: "1.5s") == .milliseconds(1500))
        #expect(try Duration(parsing: "2m") == .seconds(120))
        #expect(try Duration(parsing: "3") == .seconds(3))
        // Clock times, as ffmpeg's -t takes them.
        #expect(try Duration(parsing: "01:30") == .seconds(90))
        #expect(try Duration(parsing: "1:02:03") == .seconds(3723))
        #expect(try Duration(parsing: "00:00:01.5") == .milliseconds(1500))
        #expect(try Duration(parsing: "90:00") == .seconds(5400), "minutes may pass 59 when they lead")
        for bad in ["0s", "-1s", "abc", "", "1e3s", "s", "1:60", "1:60:00", "::", "1:2:3:4", ":30", "1:-5", "00:00",
                    "1:+5", "1:.5"] {
            #expect(throws: OptionParseError.self, "\(bad)") { try Duration(parsing: bad) }
        }
    }

    @Test func bitrates() throws {
        #expect(try Bitrate(parsing: "800k").bitsPerSecond == 800_000)
        #expect(try Bitrate(parsing: "6M").bitsPerSecond == 6_000_000)
        #expect(try Bitrate(parsing: "2.5M").bitsPerSecond == 2_500_000)
        #expect(try Bitrate(parsing: "4000000").bitsPerSecond == 4_000_000)
        for bad in ["lots", "", "0", "-5M", "M", "12q", "20G"] {
            #expect(throws: OptionParseError.self, "\(bad)") { try Bitrate(parsing: bad) }
        }
    }

    @Test func frameRates() throws {
        #expect(try FrameRate(parsing: "30").framesPerSecond == 30)
        #expect(try FrameRate(parsing: "240").intervalNanoseconds == 4_166_666)
        for bad in ["0", "-1", "abc", "1000", "241", "29.97"] {
            #expect(throws: OptionParseError.self, "\(bad)") { try FrameRate(parsing: bad) }
        }
    }

    /// Secrets are masked in whatever was typed, valid or not; multicast groups are told apart.
    @Test func secretsAreMaskedAndGroupsKnown() {
        #expect(URLText.isMulticast("224.0.0.1") && URLText.isMulticast("239.255.255.255"))
        #expect(!URLText.isMulticast("240.0.0.1") && !URLText.isMulticast("127.0.0.1") && !URLText.isMulticast("ff"))
        #expect(URLText.redacted("rtmp://h/live/SECRET?x=1") == "rtmp://h/live/••••")
        #expect(URLText.redacted("rtmp://h/live") == "rtmp://h/live")
        #expect(URLText.redacted("srt://h:1?mode=caller&passphrase=SECRET&streamid=S") ==
            "srt://h:1?mode=caller&passphrase=••••&streamid=••••")
        #expect(URLText.redacted("out.mkv") == "out.mkv")
        // Whatever the scheme, typo or not: keys in the path, tokens, passwords.
        #expect(URLText.redacted("rmtp://host/live/KEY") == "rmtp://host/live/••••")
        #expect(URLText.redacted("RTMP://host/live/KEY") == "RTMP://host/live/••••")
        #expect(URLText.redacted("https://0.0.0.0:8443?token=SECRET&max-viewers=3") ==
            "https://0.0.0.0:8443?token=••••&max-viewers=3")
        #expect(URLText.redacted("htp://h:1?Passphrase=SECRET") == "htp://h:1?passphrase=••••")
        #expect(URLText.redacted("rtsp://me:SECRET@h:8554/live") == "rtsp://me:••••@h:8554/live")
        #expect(URLText.redacted("udp://127.0.0.1:5000?ttl=2") == "udp://127.0.0.1:5000?ttl=2")
    }

    @Test func monitors() throws {
        let monitors = [
            Monitor(index: 0, name: "eDP-1", rect: PixelRect(x: 0, y: 0, width: 1920, height: 1080), isPrimary: false),
            Monitor(index: 1, name: "HDMI-1", rect: PixelRect(x: 1920, y: 0, width: 1280, height: 720),
                    isPrimary: true),
        ]
        #expect(try MonitorSelector(parsing: "primary").select(from: monitors)?.name == "HDMI-1")
        #expect(try MonitorSelector(parsing: "eDP-1").select(from: monitors)?.index == 0)
        #expect(try MonitorSelector(parsing: "1").select(from: monitors)?.name == "HDMI-1")
        #expect(try MonitorSelector.primary.select(from: [monitors[0]])?.name == "eDP-1", "first when none is primary")
        #expect(try MonitorSelector.primary.select(from: []) == nil, "root window when there are none")
        let error = #expect(throws: PodiumError.self) { try MonitorSelector.name("DP-9").select(from: monitors) }
        #expect(error?.exitCode == .unavailable)
        #expect(error?.message.contains("eDP-1") == true && error?.message.contains("HDMI-1") == true)
        #expect(throws: PodiumError.self) { try MonitorSelector.index(2).select(from: monitors) }
    }
}
