import Foundation
public import PodiumCore
import NIOCore
import Synchronization

/// One rendition as the browser viewers get it, with the run's sound: a guest of the run's hub
/// that turns each packet, once, into the message every viewer of that rendition is sent (Annex B
/// or the sound packet itself for WebCodecs, an fMP4 fragment for Media Source Extensions), and
/// offers it to each of them.
///
/// Thread-safe: `offer` runs on the encode thread (frames) and the sound thread (sound packets),
/// and never waits on a viewer.
public final class ViewerFeed: GuestSink {
    /// The rendition's name, as viewers choose it (`720p`).
    public let name: String
    /// The rendition's picture stream, and the run's sound stream when it has one.
    public let program: Program
    let hub: StreamHub

    /// What a decoder must know before the first frame, learnt from the stream's extradata or
    /// from its first keyframe.
    private struct Parameters {
        /// `00 00 00 01 SPS 00 00 00 01 PPS`, put before a keyframe that lacks them.
        var annexB: [UInt8]
        /// `{"type":"config",…}`: codec string and size, and the sound's.
        var config: String
        /// Kind 2 and the fMP4 initialization segment.
        var initialization: ByteBuffer
    }

    /// What a page must know to play the run's sound, learnt from its stream as the feed starts.
    private struct Sound {
        var stream: StreamDescription
        /// The codec as a page names it (`mp4a.40.2`, `opus`): a viewer whose hello lists it is sent the sound.
        var codec: String
        /// `{"codec":…}`, the config message's `audio`: codec, rate, channels and the decoder's
        /// description (the AudioSpecificConfig or the OpusHead), base64.
        var config: String
        /// Kind 4 and the sound's fMP4 initialization segment; `nil` when the codec's parameters
        /// do not make one, and then Media Source Extensions play the picture alone.
        var initialization: ByteBuffer?

        /// Whether `viewer`'s page plays this sound: its hello named the codec, and for Media
        /// Source Extensions there is an initialization segment.
        func isPlayed(by viewer: Viewer) -> Bool {
            viewer.soundCodecs.contains(codec) && (viewer.decoder == .webcodecs || initialization != nil)
        }
    }

    private struct State {
        var stream: StreamDescription?
        var sound: Sound?
        var parameters: Parameters?
        var viewers: [Viewer] = []
        var sequence: UInt32 = 0
        var lastResyncRequest: UInt64 = 0
        var closed = false

        /// Whether a viewer that fell behind at `time` may ask for a keyframe now.
        mutating func resyncDue(at time: UInt64) -> Bool {
            guard time >= lastResyncRequest + ViewerFeed.resyncInterval else { return false }
            lastResyncRequest = time
            return true
        }
    }
    private let state = Mutex(State())

    /// A keyframe asked for a viewer that fell behind, at most this often: a slow viewer must not
    /// turn every frame of the recording into a keyframe.
    private static let resyncInterval: UInt64 = 1_000_000_000

    /// The pictures' fragments count time at 90 kHz (an encoder's microseconds would let a
    /// fragment's picture last 71 minutes at most).
    static let pictureTimeScale: Int64 = 90_000

    /// How long a picture in a fragment for a page that plays the sound lasts unless the next
    /// comes sooner: as long as a fragment can say, 13 hours. Such a page places frames at their
    /// own times (so they keep in step with the sound); Media Source Extensions play no further
    /// than the picture reaches (Chromium, 3 s past it), and take a gap over twice the last
    /// frame's length for a discontinuity, dropping every frame to the next keyframe. A still
    /// screen sends nothing for as long as it is still, so its last picture must last until then.
    static let heldFrameDuration = Int64(UInt32.max) / pictureTimeScale * pictureTimeScale

    /// - Parameters:
    ///   - stream: the id of the rendition's picture stream on `hub`.
    ///   - sound: the id of the run's sound stream on `hub`, when it has one.
    public init(name: String, stream: Int, sound: Int? = nil, hub: StreamHub) {
        self.name = name
        program = Program(streams: [stream] + (sound.map { [$0] } ?? []))
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
            throw .usage("the browser viewer plays H.264", remedy: .videoCodec(.h264))
        }
        let sound = streams.first { $0.audio != nil }.flatMap(Self.sound)
        state.withLock { state in
            state.stream = stream
            state.sound = sound
            if state.parameters == nil {
                stream.extradata.withUnsafeBytes {
                    state.parameters = Self.parameters(in: $0, of: stream, name: name, sound: sound)
                }
            }
        }
    }

    public func offer(_ packet: EncodedPacket) {
        guard packet.streamID == program.streams[0] else { return offerSound(packet) }
        var resync = false
        state.withLock { state in
            guard !state.viewers.isEmpty, let stream = state.stream else { return }
            if state.parameters == nil && packet.isKeyframe {
                packet.payload.withUnsafeBytes {
                    state.parameters = Self.parameters(in: $0, of: stream, name: name, sound: state.sound)
                }
            }
            guard let parameters = state.parameters else { return }
            let sound = state.sound
            // Up to three forms, each made once: Annex B; a fragment for a page that plays frames one
            // after the other; one held until the next, for a page that places frames at their
            // times beside the sound.
            var annexB: ByteBuffer?
            var fragment: ByteBuffer?
            var heldFragment: ByteBuffer?
            let sequence = state.sequence &+ 1
            for viewer in state.viewers {
                let playsSound = sound?.isPlayed(by: viewer) ?? false
                let form: ByteBuffer
                switch viewer.decoder {
                case .webcodecs:
                    form = annexB ?? Self.annexBFrame(packet, parameters: parameters)
                    annexB = form
                case .mse where playsSound:
                    form = heldFragment
                        ?? Self.fragment(packet, sequence: sequence, stream: stream, duration: Self.heldFrameDuration)
                    heldFragment = form
                case .mse:
                    form = fragment ?? Self.fragment(packet, sequence: sequence, stream: stream)
                    fragment = form
                }
                if viewer.decoder == .mse { state.sequence = sequence }
                let outcome = viewer.offer(form, isKeyframe: packet.isKeyframe) {
                    switch viewer.decoder {
                    case .webcodecs: [.text(parameters.config)]
                    case .mse where playsSound:
                        [.text(parameters.config), .data(parameters.initialization)]
                            + (sound?.initialization.map { [.data($0)] } ?? [])
                    case .mse: [.text(parameters.config), .data(parameters.initialization)]
                    }
                }
                if outcome == .fellBehind { resync = state.resyncDue(at: packet.captureTime) || resync }
            }
        }
        if resync { requestKeyframe() }
    }

    /// A sound packet goes to each viewer whose page plays the run's sound codec, after its first
    /// keyframe: raw for WebCodecs, a fragment for Media Source Extensions.
    private func offerSound(_ packet: EncodedPacket) {
        var resync = false
        state.withLock { state in
            guard !state.viewers.isEmpty, let sound = state.sound else { return }
            var raw: ByteBuffer?
            var fragment: ByteBuffer?
            let sequence = state.sequence &+ 1
            for viewer in state.viewers where sound.isPlayed(by: viewer) {
                let form: ByteBuffer
                switch viewer.decoder {
                case .webcodecs:
                    form = raw ?? Self.soundPacket(packet, stream: sound.stream)
                    raw = form
                case .mse:
                    // The encoder's priming packets come before the timeline's start, where a fragment cannot be.
                    guard packet.presentationTime >= 0 else { continue }
                    form = fragment ?? Self.soundFragment(packet, sequence: sequence, stream: sound.stream)
                    fragment = form
                    state.sequence = sequence
                }
                if viewer.offerSound(form) == .fellBehind { resync = state.resyncDue(at: packet.captureTime) || resync }
            }
        }
        if resync { requestKeyframe() }
    }

    /// Asks again for the keyframe a viewer that fell behind waits for, when its first asking
    /// came too soon after another's: a still screen sends nothing that would ask it again.
    func resyncStragglers(at time: UInt64) {
        let due = state.withLock { state in
            state.viewers.contains { $0.isResyncing } && state.resyncDue(at: time)
        }
        if due { requestKeyframe() }
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
        /// The picture's fMP4 initialization segment.
        case initialization = 2
        case sound = 3
        /// The sound's fMP4 initialization segment.
        case soundInitialization = 4
    }

    /// A frame's or sound packet's header: kind, flags (1: keyframe), six zeros, its capture time
    /// in milliseconds of the server's monotonic clock, and its presentation time in microseconds,
    /// both Float64. A sound packet's capture time is when it was heard, moved as the sound stage
    /// moves it to meet the pictures of that instant.
    static let frameHeaderSize = 24

    private static func writeHeader(_ kind: Kind, _ packet: EncodedPacket, microseconds: Double,
                                    into out: inout ByteBuffer) {
        out.writeInteger(kind.rawValue)
        out.writeInteger(UInt8(packet.isKeyframe ? 1 : 0))
        out.writeRepeatingByte(0, count: 6)
        out.writeInteger((Double(packet.captureTime) / 1e6).bitPattern)
        out.writeInteger(microseconds.bitPattern)
    }

    /// The picture's packet times count microseconds already.
    private static func writeHeader(_ packet: EncodedPacket, into out: inout ByteBuffer) {
        writeHeader(.frame, packet, microseconds: Double(packet.presentationTime), into: &out)
    }

    /// A sound packet for WebCodecs: the header, then the packet as encoded.
    private static func soundPacket(_ packet: EncodedPacket, stream: StreamDescription) -> ByteBuffer {
        packet.payload.withUnsafeBytes { bytes in
            var out = ByteBuffer()
            out.reserveCapacity(frameHeaderSize + bytes.count)
            writeHeader(.sound, packet, microseconds: microseconds(packet.presentationTime, of: stream), into: &out)
            out.writeBytes(bytes)
            return out
        }
    }

    /// A sound packet for Media Source Extensions: the header, then a fragment of the sound track.
    private static func soundFragment(_ packet: EncodedPacket, sequence: UInt32, stream: StreamDescription)
        -> ByteBuffer {
        packet.payload.withUnsafeBytes { bytes in
            var out = ByteBuffer()
            out.reserveCapacity(frameHeaderSize + 120 + bytes.count)
            writeHeader(.sound, packet, microseconds: microseconds(packet.presentationTime, of: stream), into: &out)
            let duration = packet.duration > 0 ? packet.duration : Int64(stream.audio?.samplesPerPacket ?? 1_024)
            FragmentedMP4.writeFragment(
                into: &out, track: .sound, sequence: sequence, decodeTime: UInt64(packet.presentationTime),
                duration: UInt32(clamping: duration), isKeyframe: true, sampleSize: bytes.count
            ) { out in out.writeBytes(bytes) }
            return out
        }
    }

    private static func microseconds(_ time: Int64, of stream: StreamDescription) -> Double {
        Double(time) * 1e6 / Double(max(1, stream.timeScale))
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
    /// - Parameter duration: how long it lasts unless the next comes sooner (at 90 kHz); by default
    ///   a frame interval.
    private static func fragment(_ packet: EncodedPacket, sequence: UInt32, stream: StreamDescription,
                                 duration: Int64? = nil) -> ByteBuffer {
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
            let scale = Int64(max(1, stream.timeScale))
            let interval = packet.duration > 0 ? (packet.duration * pictureTimeScale + scale / 2) / scale
                : pictureTimeScale / Int64(max(1, stream.video?.framesPerSecond ?? 30))
            FragmentedMP4.writeFragment(
                into: &out, sequence: sequence,
                decodeTime: UInt64((max(0, packet.presentationTime) * pictureTimeScale + scale / 2) / scale),
                duration: UInt32(clamping: duration ?? interval), isKeyframe: packet.isKeyframe,
                sampleSize: sampleSize
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
    private static func parameters(in bytes: UnsafeRawBufferPointer, of stream: StreamDescription, name: String,
                                   sound: Sound?) -> Parameters? {
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
            + #""height":\#(video.size.height),"fps":\#(video.framesPerSecond),"audio":\#(sound?.config ?? "null")}"#
        var initialization = ByteBuffer()
        initialization.writeInteger(Kind.initialization.rawValue)
        initialization.writeRepeatingByte(0, count: 7)
        var segment = FragmentedMP4.initialization(width: video.size.width, height: video.size.height,
                                                   timeScale: Int(pictureTimeScale), configuration: configuration)
        initialization.writeBuffer(&segment)
        return Parameters(annexB: annexB, config: config, initialization: initialization)
    }

    /// What a page needs to play `stream`, the run's sound; `nil` for a codec pages are not told of.
    private static func sound(_ stream: StreamDescription) -> Sound? {
        guard let audio = stream.audio, let codec = stream.codecsAttribute else { return nil }
        let description = Data(stream.extradata).base64EncodedString()
        let config = #"{"codec":"\#(codec)","sampleRate":\#(audio.sampleRate),"channels":\#(audio.channels),"#
            + #""description":"\#(description)"}"#
        let initialization = FragmentedMP4.initialization(sound: stream).map { segment in
            var message = ByteBuffer()
            message.writeInteger(Kind.soundInitialization.rawValue)
            message.writeRepeatingByte(0, count: 7)
            var segment = segment
            message.writeBuffer(&segment)
            return message
        }
        return Sound(stream: stream, codec: codec, config: config, initialization: initialization)
    }
}
