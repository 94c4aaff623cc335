public import PodiumCore
import NIOCore
import Synchronization

/// One rendition as the browser viewers get it: a guest of the run's hub that turns each
/// packet, once, into the message every viewer of that rendition is sent (Annex B for WebCodecs,
/// an fMP4 fragment for Media Source Extensions), and offers it to each of them.
///
/// Thread-safe: `offer` runs on the encode thread and never waits on a viewer.
public final class ViewerFeed: GuestSink {
    /// The rendition's name, as viewers choose it (`720p`).
    public let name: String
    /// The rendition's picture stream.
    public let program: Program
    let hub: StreamHub

    /// What a decoder must know before the first frame, learnt from the stream's extradata or
    /// from its first keyframe.
    private struct Parameters {
        /// `00 00 00 01 SPS 00 00 00 01 PPS`, put before a keyframe that lacks them.
        var annexB: [UInt8]
        /// `{"type":"config",…}`: codec string and size.
        var config: String
        /// Kind 2 and the fMP4 initialization segment.
        var initialization: ByteBuffer
    }

    private struct State {
        var stream: StreamDescription?
        var parameters: Parameters?
        var viewers: [Viewer] = []
        var sequence: UInt32 = 0
        var lastResyncRequest: UInt64 = 0
        var closed = false
    }
    private let state = Mutex(State())

    /// A keyframe asked for a viewer that fell behind, at most this often: a slow viewer must not
    /// turn every frame of the recording into a keyframe.
    private static let resyncInterval: UInt64 = 1_000_000_000

    /// - Parameter stream: the id of the rendition's picture stream on `hub`.
    public init(name: String, stream: Int, hub: StreamHub) {
        self.name = name
        program = Program(streams: [stream])
        self.hub = hub
    }

    private func requestKeyframe() {
        hub.requestKeyframe(stream: program.streams[0])
    }

    /// The rendition's picture size, once its encoder described it.
    public var size: PixelSize? { state.withLock { $0.stream?.video?.size } }

    /// `viewer` watches this rendition from its next keyframe, which is asked for now.
    func add(_ viewer: Viewer) {
        let added = state.withLock { state in
            guard !state.closed else { return false }
            state.viewers.append(viewer)
            return true
        }
        if added { requestKeyframe() } else { viewer.finish() }
    }

    func remove(_ viewer: Viewer) {
        state.withLock { $0.viewers.removeAll { $0 === viewer } }
    }

    public func start(_ streams: [StreamDescription]) throws(PodiumError) {
        guard let stream = streams.first, stream.video?.codec == .h264 else {
            throw .usage("the browser viewer plays H.264; pass --codec h264")
        }
        state.withLock { state in
            state.stream = stream
            if state.parameters == nil {
                stream.extradata.withUnsafeBytes { state.parameters = Self.parameters(in: $0, of: stream, name: name) }
            }
        }
    }

    public func offer(_ packet: EncodedPacket) {
        var resync = false
        state.withLock { state in
            guard !state.viewers.isEmpty, let stream = state.stream else { return }
            if state.parameters == nil && packet.isKeyframe {
                packet.payload.withUnsafeBytes { state.parameters = Self.parameters(in: $0, of: stream, name: name) }
            }
            guard let parameters = state.parameters else { return }
            var annexB: ByteBuffer?
            var fragment: ByteBuffer?
            if state.viewers.contains(where: { $0.decoder == .webcodecs }) {
                annexB = Self.annexBFrame(packet, parameters: parameters)
            }
            if state.viewers.contains(where: { $0.decoder == .mse }) {
                state.sequence &+= 1
                fragment = Self.fragment(packet, sequence: state.sequence, stream: stream)
            }
            for viewer in state.viewers {
                guard let frame = viewer.decoder == .webcodecs ? annexB : fragment else { continue }
                let outcome = viewer.offer(frame, isKeyframe: packet.isKeyframe) {
                    viewer.decoder == .webcodecs ? [.text(parameters.config)]
                        : [.text(parameters.config), .data(parameters.initialization)]
                }
                if outcome == .fellBehind && packet.captureTime >= state.lastResyncRequest + Self.resyncInterval {
                    state.lastResyncRequest = packet.captureTime
                    resync = true
                }
            }
        }
        if resync { requestKeyframe() }
    }

    public func close() {
        let viewers = state.withLock { state in
            state.closed = true
            defer { state.viewers = [] }
            return state.viewers
        }
        viewers.forEach { $0.finish() }
    }

    // MARK: - Messages

    /// The message kinds, in each binary message's first byte.
    enum Kind: UInt8 {
        case frame = 1
        case initialization = 2
    }

    /// A frame's header: kind, flags (1: keyframe), six zeros, its capture time in milliseconds
    /// of the server's monotonic clock, and its presentation time in microseconds, both Float64.
    static let frameHeaderSize = 24

    private static func writeHeader(_ packet: EncodedPacket, into out: inout ByteBuffer) {
        out.writeInteger(Kind.frame.rawValue)
        out.writeInteger(UInt8(packet.isKeyframe ? 1 : 0))
        out.writeRepeatingByte(0, count: 6)
        out.writeInteger((Double(packet.captureTime) / 1e6).bitPattern)
        out.writeInteger(Double(packet.presentationTime).bitPattern)
    }

    /// An Annex B access unit, with the parameter sets before a keyframe that lacks them.
    private static func annexBFrame(_ packet: EncodedPacket, parameters: Parameters) -> ByteBuffer {
        packet.payload.withUnsafeBytes { bytes in
            var hasParameterSets = false
            if packet.isKeyframe {
                AnnexB.forEachUnit(in: bytes) { unit in
                    if AnnexB.h264Type(bytes[unit.lowerBound]) == 7 { hasParameterSets = true }
                }
            }
            let prefix = packet.isKeyframe && !hasParameterSets ? parameters.annexB : []
            var out = ByteBuffer()
            out.reserveCapacity(frameHeaderSize + prefix.count + bytes.count)
            writeHeader(packet, into: &out)
            out.writeBytes(prefix)
            out.writeBytes(bytes)
            return out
        }
    }

    /// An fMP4 fragment of one frame: its NAL units with four-byte lengths, less the parameter
    /// sets and delimiters, which the initialization segment holds.
    private static func fragment(_ packet: EncodedPacket, sequence: UInt32, stream: StreamDescription) -> ByteBuffer {
        packet.payload.withUnsafeBytes { bytes in
            func kept(_ unit: Range<Int>) -> Bool {
                !unit.isEmpty && ![7, 8, 9, 12].contains(AnnexB.h264Type(bytes[unit.lowerBound]))
            }
            var sampleSize = 0
            AnnexB.forEachUnit(in: bytes) { unit in if kept(unit) { sampleSize += 4 + unit.count } }
            var out = ByteBuffer()
            out.reserveCapacity(frameHeaderSize + 120 + sampleSize)
            writeHeader(packet, into: &out)
            // Each frame lasts a frame interval unless the next comes sooner; the page plays them in sequence.
            let duration = UInt32(clamping: packet.duration > 0 ? packet.duration
                                  : Int64(stream.timeScale / max(1, stream.video?.framesPerSecond ?? 30)))
            FragmentedMP4.writeFragment(
                into: &out, sequence: sequence, decodeTime: UInt64(max(0, packet.presentationTime)),
                duration: duration, isKeyframe: packet.isKeyframe, sampleSize: sampleSize
            ) { out in
                AnnexB.forEachUnit(in: bytes) { unit in
                    guard kept(unit) else { return }
                    out.writeInteger(UInt32(unit.count))
                    out.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[unit]))
                }
            }
            return out
        }
    }

    /// The parameter sets found in `bytes` (Annex B), and what they tell a decoder.
    private static func parameters(in bytes: UnsafeRawBufferPointer, of stream: StreamDescription, name: String)
        -> Parameters? {
        var sps: [UInt8]?
        var pps: [UInt8]?
        AnnexB.forEachUnit(in: bytes) { unit in
            guard !unit.isEmpty else { return }
            switch AnnexB.h264Type(bytes[unit.lowerBound]) {
            case 7: sps = sps ?? Array(bytes[unit])
            case 8: pps = pps ?? Array(bytes[unit])
            default: break
            }
        }
        guard let sps, let pps, let configuration = AnnexB.avcConfiguration(sps: sps, pps: pps) else { return nil }
        let annexB = [0, 0, 0, 1] + sps + [0, 0, 0, 1] + pps
        var described = stream
        described.extradata = annexB
        guard let codec = described.codecsAttribute else { return nil }
        guard let video = stream.video else { return nil }
        let config = #"{"type":"config","rendition":"\#(name)","codec":"\#(codec)","width":\#(video.size.width),"#
            + #""height":\#(video.size.height),"fps":\#(video.framesPerSecond)}"#
        var initialization = ByteBuffer()
        initialization.writeInteger(Kind.initialization.rawValue)
        initialization.writeRepeatingByte(0, count: 7)
        var segment = FragmentedMP4.initialization(width: video.size.width, height: video.size.height,
                                                   timeScale: stream.timeScale, configuration: configuration)
        initialization.writeBuffer(&segment)
        return Parameters(annexB: annexB, config: config, initialization: initialization)
    }
}
