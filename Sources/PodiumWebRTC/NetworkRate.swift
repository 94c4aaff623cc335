public import PodiumCore
/// What a WebRTC receiver said about the pictures in its last report (RTCP receiver report).
public struct ReceiverReport: Sendable, Equatable {
    /// The highest sequence number it received: a new value is a new report.
    public var sequence: UInt32
    /// The fraction of packets lost since its report before (0 to 1).
    public var fractionLost: Double
    /// The round trip, in seconds, when the report said how long it held the last sender report.
    public var roundTrip: Double?

    public init(sequence: UInt32, fractionLost: Double, roundTrip: Double?) {
        self.sequence = sequence
        self.fractionLost = fractionLost
        self.roundTrip = roundTrip
    }
}

/// A WebRTC connection's state and what its receiver said, as the output reads them.
public struct WebRTCFeedback: Sendable, Equatable {
    public enum State: Sendable, Equatable { case connecting, connected, failed }

    public var state: State
    /// Keyframes the receiver asked for (PLI, FIR) since the last reading.
    public var keyframeRequests = 0
    /// Its last estimate of the bit rate it can take (REMB), if it sends them.
    public var receiverEstimate: Bitrate?
    /// How long since anything came from the receiver (RTCP); `nil` before the first.
    public var sinceReceiverSpoke: Duration?
    /// Its last report on the pictures.
    public var report: ReceiverReport?
    /// Totals: picture packets sent, packets sent again, NACKs and keyframe requests received.
    public var videoPackets = 0
    public var retransmitted = 0
    public var nacks = 0
    public var keyframesAsked = 0

    public init(state: State, keyframeRequests: Int = 0, receiverEstimate: Bitrate? = nil,
                sinceReceiverSpoke: Duration? = nil, report: ReceiverReport? = nil, videoPackets: Int = 0,
                retransmitted: Int = 0, nacks: Int = 0, keyframesAsked: Int = 0) {
        self.state = state
        self.keyframeRequests = keyframeRequests
        self.receiverEstimate = receiverEstimate
        self.sinceReceiverSpoke = sinceReceiverSpoke
        self.report = report
        self.videoPackets = videoPackets
        self.retransmitted = retransmitted
        self.nacks = nacks
        self.keyframesAsked = keyframesAsked
    }
}

/// The bit rate a WebRTC output asks of its encoder, following its receiver's feedback within a
/// ceiling (`--bitrate`): down at once when a report says packets were lost (more than 10 %) or
/// the round trip grew (queues fill before they drop), and to the receiver's own estimate (REMB)
/// when it sends one; back up slowly, a step a second, while reports say nothing is lost. Loss
/// below 10 % is left to retransmission. The loss rule is the one of Google's congestion control
/// (draft-ietf-rmcat-gcc, section 6).
public struct NetworkRate: Sendable {
    /// A change of the rate asked for, and why.
    public struct Change: Sendable, Equatable {
        public var from: Bitrate
        public var to: Bitrate
        public var reason: String
    }

    public let ceiling: Bitrate
    /// The least it asks for: a twentieth of the ceiling, and not under 150 kbit/s.
    public let floor: Bitrate
    public private(set) var target: Bitrate
    private var lastReport: UInt32?
    private var lowestRoundTrip: Double?
    /// When it last went up, and down for loss or queueing (nanoseconds on the run's clock).
    private var lastRise: UInt64 = 0
    private var lastFall: UInt64?

    /// Queueing that counts as congestion: the round trip this much above its lowest, in seconds.
    static let queueing = 0.1
    /// One step up: 8 % more.
    static let rise = 1.08
    /// How long after a step down reports may still speak of what was sent before it, beside the
    /// round trip: the encoder's rate control takes most of a second to follow (x264's average),
    /// and the packets queued at the bottleneck meanwhile are lost or late all the same. Each such
    /// report taken as news would compound the step (seen: 2.7 Mbit/s into a 1 Mbit/s link fell to
    /// 150 kbit/s within 1.7 s of reports, with 300 ms + RTT between steps as libwebrtc waits).
    static let fallSpacing = 1.0

    public init(ceiling: Bitrate) {
        self.ceiling = ceiling
        floor = Bitrate(bitsPerSecond: min(ceiling.bitsPerSecond, max(150_000, ceiling.bitsPerSecond / 20)))
        target = ceiling
    }

    /// A ceiling for a WebRTC output given no bit rate: a tenth of a bit a pixel a frame (6.2
    /// Mbit/s for 1080p30, 2.8 for 720p30), from 0.5 to 8 Mbit/s.
    public static func defaultCeiling(size: PixelSize, fps: FrameRate) -> Bitrate {
        let bits = Double(size.width * size.height * fps.framesPerSecond) / 10
        return Bitrate(bitsPerSecond: Int(min(max(bits, 500_000), 8_000_000) / 100_000) * 100_000)
    }

    /// Takes what the receiver said at `time` (nanoseconds).
    /// - Returns: the change to ask of the encoder, or `nil` to go on as it is.
    public mutating func take(_ feedback: WebRTCFeedback, at time: UInt64) -> Change? {
        var next = Double(target.bitsPerSecond)
        var reason: String?
        if let report = feedback.report, report.sequence != lastReport {
            lastReport = report.sequence
            let queued = report.roundTrip.map { roundTrip in
                lowestRoundTrip = min(lowestRoundTrip ?? roundTrip, roundTrip)
                return roundTrip - (lowestRoundTrip ?? roundTrip)
            } ?? 0
            let spacing = UInt64((Self.fallSpacing + (report.roundTrip ?? 0)) * 1e9)
            let calmSince = max(lastRise, lastFall ?? 0)
            if report.fractionLost > 0.1 || queued > Self.queueing {
                // Unless the step down before this one has yet to show.
                if lastFall.map({ time >= $0 + spacing }) ?? true {
                    lastFall = time
                    if report.fractionLost > 0.1 {
                        next *= 1 - 0.5 * report.fractionLost
                        reason = "\(Int((report.fractionLost * 100).rounded())) % lost"
                    } else {
                        next *= 0.85
                        reason = "round trip \(Int(((report.roundTrip ?? 0) * 1_000).rounded())) ms, "
                            + "\(Int((queued * 1_000).rounded())) ms above its lowest"
                    }
                }
            } else if report.fractionLost < 0.02 && time >= calmSince + 1_000_000_000 {
                next *= Self.rise
                reason = "nothing lost"
            }
        }
        if let estimate = feedback.receiverEstimate, Double(estimate.bitsPerSecond) < next {
            next = Double(estimate.bitsPerSecond)
            reason = "the receiver's estimate"
        }
        // In steps of 10 kbit/s, which read well (`2350k`).
        let stepped = (next / 10_000).rounded() * 10_000
        let bounded = Bitrate(bitsPerSecond: Int(min(max(stepped, Double(floor.bitsPerSecond)),
                                                     Double(ceiling.bitsPerSecond))))
        guard let reason, bounded != target else { return nil }
        // Changes smaller than 2 % are not worth an encoder's reconfiguration (nor a record).
        let moved = abs(Double(bounded.bitsPerSecond - target.bitsPerSecond)) / Double(target.bitsPerSecond)
        guard moved >= 0.02 || bounded == ceiling || bounded == floor else { return nil }
        if bounded.bitsPerSecond > target.bitsPerSecond { lastRise = time }
        defer { target = bounded }
        return Change(from: target, to: bounded, reason: reason)
    }
}
