import PodiumCore
import PodiumWebRTC
import Testing

/// A WebRTC output's bit rate, which follows its receiver within a ceiling (pure logic): down at
/// once on heavy loss, on a growing round trip or to the receiver's estimate, back up a step a
/// second while nothing is lost; its own encoder, asked through the hub; the ICE servers as typed.
struct WebRTCRateTests {
    let second: UInt64 = 1_000_000_000

    func report(_ sequence: UInt32, lost: Double, roundTrip: Double? = 0.02) -> WebRTCFeedback {
        WebRTCFeedback(state: .connected, report: ReceiverReport(sequence: sequence, fractionLost: lost,
                                                                 roundTrip: roundTrip))
    }

    @Test func heavyLossLowersTheRateAndNoLossRaisesItSlowly() throws {
        var rate = NetworkRate(ceiling: Bitrate(bitsPerSecond: 4_000_000))
        #expect(rate.target.bitsPerSecond == 4_000_000 && rate.floor.bitsPerSecond == 200_000)
        // Loss that retransmission repairs (under 10 %) changes nothing; nor does the same report twice.
        #expect(rate.take(report(1, lost: 0.05), at: second) == nil)
        let downChange = rate.take(report(2, lost: 0.3), at: 2 * second)
        let down = try #require(downChange)
        #expect(down.to.bitsPerSecond == 3_400_000 && down.reason == "30 % lost")
        #expect(rate.take(report(2, lost: 0.3), at: 3 * second) == nil)
        // Reports within a second (and a round trip) of the step still speak of what was sent
        // before it: they do not compound it.
        #expect(rate.take(report(50, lost: 0.4), at: 2 * second + second / 2) == nil)
        #expect(rate.take(report(51, lost: 0.4), at: 3 * second + second / 20)?.to.bitsPerSecond == 2_720_000)
        // Back up 8 % at a report, at most once a second.
        let upChange = rate.take(report(3, lost: 0), at: 4 * second + second / 10)
        let up = try #require(upChange)
        #expect(up.to.bitsPerSecond == 2_940_000 && up.reason == "nothing lost")
        #expect(rate.take(report(4, lost: 0), at: 4 * second + second / 2) == nil)
        var last = up.to
        for step in 5...20 {
            if let change = rate.take(report(UInt32(step), lost: 0), at: UInt64(step) * second) { last = change.to }
        }
        #expect(last.bitsPerSecond == 4_000_000, "never above the ceiling")
    }

    @Test func aGrowingRoundTripOrTheReceiversEstimateLowersIt() throws {
        var rate = NetworkRate(ceiling: Bitrate(bitsPerSecond: 2_000_000))
        #expect(rate.take(report(1, lost: 0, roundTrip: 0.02), at: 0) == nil)
        let queuedChange = rate.take(report(2, lost: 0, roundTrip: 0.2), at: second)
        let queued = try #require(queuedChange)
        #expect(queued.to.bitsPerSecond == 1_700_000 && queued.reason.hasPrefix("round trip 200 ms, 180 ms above"))
        var estimated = WebRTCFeedback(state: .connected, receiverEstimate: Bitrate(bitsPerSecond: 500_000))
        let cappedChange = rate.take(estimated, at: 2 * second)
        let capped = try #require(cappedChange)
        #expect(capped.to.bitsPerSecond == 500_000 && capped.reason == "the receiver's estimate")
        estimated.receiverEstimate = Bitrate(bitsPerSecond: 10_000)
        #expect(rate.take(estimated, at: 3 * second)?.to == rate.floor)
    }

    @Test func aCeilingFollowsThePictureWhenNoneIsGiven() {
        let hd = NetworkRate.defaultCeiling(size: PixelSize(width: 1920, height: 1080), fps: FrameRate(30))
        #expect(hd.bitsPerSecond == 6_200_000)
        #expect(NetworkRate.defaultCeiling(size: PixelSize(width: 320, height: 240), fps: FrameRate(5))
            .bitsPerSecond == 500_000)
        #expect(NetworkRate.defaultCeiling(size: PixelSize(width: 3840, height: 2160), fps: FrameRate(60))
            .bitsPerSecond == 8_000_000)
    }

    @Test func theEncoderTakesTheLeastOfItsTuningAndItsReceiver() {
        let hub = StreamHub()
        let stream = hub.addStream()
        #expect(hub.takeBitrateRequest(stream: stream) == nil)
        hub.requestBitrate(.init(bitrate: Bitrate(bitsPerSecond: 900_000), reason: "25 % lost"), stream: stream)
        #expect(hub.takeBitrateRequest(stream: stream + 1) == nil)
        let asked = hub.takeBitrateRequest(stream: stream)
        #expect(asked?.bitrate.bitsPerSecond == 900_000 && hub.takeBitrateRequest(stream: stream) == nil)

        var tuning = EncoderTuning(framesPerSecond: 30)
        let planned = Bitrate(bitsPerSecond: 2_000_000)
        tuning.networkBitrate = asked?.bitrate
        #expect(tuning.bitrate(planned: planned).bitsPerSecond == 900_000)
        tuning.bitrateFactor = 0.25
        #expect(tuning.bitrate(planned: planned).bitsPerSecond == 500_000, "a key's lower rate still counts")
    }

    @Test func iceServersAreReadAsTypedAndTheirPasswordsKept() throws {
        let cases = [("stun:stun.example.com", "stun://stun.example.com:3478"),
                     ("stun:10.0.0.1:19302", "stun://10.0.0.1:19302"),
                     ("stun://10.0.0.1:3478", "stun://10.0.0.1:3478"),
                     ("turn:ann:pa55@turn.example.com", "turn://ann:pa55@turn.example.com:3478"),
                     ("turns:ann:pa55@turn.example.com?transport=tcp",
                      "turns://ann:pa55@turn.example.com:5349?transport=tcp")]
        for (typed, read) in cases {
            #expect(try WHIPEndpoint.iceServer(parsing: typed) == read)
        }
        for bad in ["stn:host", "turn:host", "turn:ann@host", "stun:ann:pw@host", "stun:host:0", "stun:",
                    "turn:a:b@h?x=1"] {
            #expect(throws: OptionParseError.self, "\(bad)") { try WHIPEndpoint.iceServer(parsing: bad) }
        }
        var endpoint = try WHIPEndpoint(parsing: "whip+https://sfu.example.com/whip/talk")
        endpoint.iceServers = [try WHIPEndpoint.iceServer(parsing: "turn:ann:pa55@turn.example.com")]
        #expect(endpoint.secrets == ["pa55"])
        #expect(!URLText.redacted("turn:ann:pa55@turn.example.com").contains("pa55"))
    }
}
