import CFFmpeg
import Glibc
public import PodiumCore

/// Writes encoded packets to one destination with a libavformat muxer: a file, or MPEG-TS over
/// UDP or TCP.
///
/// Not thread-safe: confine to the sink's own thread (opening a TCP sink blocks until it connects).
public final class MuxerSink: @unchecked Sendable {
    public let url: SinkURL
    private let parameters: UnsafeMutablePointer<AVCodecParameters>
    private let encoderTimeBase = VideoEncoder.timeBase
    private let interrupt: StopFlag
    /// How much a recording may lose when the process is killed: its muxer hands complete pieces
    /// to the OS this often.
    private let flushInterval: Duration
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var streamTimeBase = AVRational(num: 1, den: 1)
    private var headerWritten = false
    /// A client's connected socket that the muxer writes to instead of opening `url` (a listener's guest).
    private let client: SocketWriter?
    private let outgoing = av_packet_alloc()!

    /// Keeps the stream's parameters; opens nothing yet.
    ///
    /// - Parameters:
    ///   - stream: what is written.
    ///   - flushInterval: at most this much of a file is lost when the process is killed.
    ///   - interrupt: when raised, blocking network I/O (waiting for a TCP client, say) gives up.
    ///   - client: a connected socket to write to, owned (closed) by the muxer; `nil` opens `url`.
    public init(
        url: SinkURL, stream: StreamDescription, flushInterval: Duration, interrupt: StopFlag, client: Int32? = nil
    ) {
        self.url = url
        self.interrupt = interrupt
        self.client = client.map { SocketWriter(descriptor: $0, interrupt: interrupt) }
        self.flushInterval = flushInterval
        parameters = avcodec_parameters_alloc()
        Self.describe(stream, in: parameters)
    }

    /// Fills libavformat's parameters of a stream from Podium's description of it.
    private static func describe(_ stream: StreamDescription, in parameters: UnsafeMutablePointer<AVCodecParameters>) {
        let colors = stream.colors
        parameters.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        parameters.pointee.codec_id = stream.codec.codecID
        parameters.pointee.width = Int32(stream.size.width)
        parameters.pointee.height = Int32(stream.size.height)
        parameters.pointee.format = colors.ffmpegPixelFormat.rawValue
        parameters.pointee.bit_rate = Int64(stream.bitrate?.bitsPerSecond ?? 0)
        parameters.pointee.profile = Int32(stream.profile ?? Int(FF_PROFILE_UNKNOWN))
        parameters.pointee.level = Int32(stream.level ?? Int(FF_LEVEL_UNKNOWN))
        parameters.pointee.color_range = colors.ffmpegRange
        parameters.pointee.color_space = colors.ffmpegMatrix
        parameters.pointee.color_primaries = colors.ffmpegPrimaries
        parameters.pointee.color_trc = colors.ffmpegTransfer
        parameters.pointee.chroma_location = colors.ffmpegChromaLocation
        // Parameter sets, in a buffer libavformat owns (and frees), padded as it requires.
        guard !stream.extradata.isEmpty,
              let extradata = av_mallocz(stream.extradata.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else { return }
        stream.extradata.withUnsafeBytes { bytes in
            if let start = bytes.baseAddress { extradata.copyMemory(from: start, byteCount: bytes.count) }
        }
        parameters.pointee.extradata = extradata.assumingMemoryBound(to: UInt8.self)
        parameters.pointee.extradata_size = Int32(stream.extradata.count)
    }

    deinit {
        close()
        var parameters: UnsafeMutablePointer<AVCodecParameters>? = parameters
        avcodec_parameters_free(&parameters)
        var packet: UnsafeMutablePointer<AVPacket>? = outgoing
        av_packet_free(&packet)
    }

    /// Whether the container wants codec parameters in extradata rather than in the stream.
    public static func needsGlobalHeader(_ url: SinkURL) -> Bool {
        guard let format = av_guess_format(url.container.muxerName, nil, nil) else { return false }
        return format.pointee.flags & AVFMT_GLOBALHEADER != 0
    }

    /// Checks, without opening anything, that `codec` can be carried by `url`'s container.
    /// - Throws: 64 naming the flag values that do not fit together.
    public static func validate(_ url: SinkURL, codec: VideoCodec) throws(PodiumError) {
        guard let format = av_guess_format(url.container.muxerName, nil, nil) else {
            throw .unavailable("this FFmpeg has no \(url.container.muxerName) muxer")
        }
        // MPEG-TS answers no codec query; it carries H.264 and HEVC with standard stream types.
        let fits = url.container == .mpegts
            ? [.h264, .hevc].contains(codec)
            : avformat_query_codec(format, codec.codecID, FF_COMPLIANCE_NORMAL) == 1
        guard fits else {
            throw .usage("--codec \(codec) cannot be carried in \(url.container.displayName) (--to \(url))")
        }
    }

    /// Opens the destination and writes the container header; blocks while a TCP peer is awaited.
    ///
    /// The corresponding C functions are `avformat_alloc_output_context2`, `avio_open2` and `avformat_write_header`.
    public func open() throws(PodiumError) {
        var context: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_alloc_output_context2(&context, nil, url.container.muxerName, nil) >= 0, let context else {
            throw .software("cannot create a \(url.container.muxerName) muxer")
        }
        self.context = context
        guard let stream = avformat_new_stream(context, nil) else { throw .software("cannot add a stream to \(url)") }
        avcodec_parameters_copy(stream.pointee.codecpar, parameters)
        stream.pointee.time_base = encoderTimeBase

        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        for (key, value) in url.muxerOptions(flushInterval: flushInterval) { av_dict_set(&options, key, value, 0) }
        // Each packet, fragment or cluster goes to the OS as soon as the muxer completes it, so a
        // killed run leaves all but the last moments readable (libavformat would keep 32 KiB).
        context.pointee.flags |= AVFMT_FLAG_FLUSH_PACKETS

        var callback = AVIOInterruptCB()
        callback.callback = { opaque in
            Unmanaged<StopFlag>.fromOpaque(opaque!).takeUnretainedValue().isRaised ? 1 : 0
        }
        callback.opaque = Unmanaged.passUnretained(interrupt).toOpaque()
        context.pointee.interrupt_callback = callback

        var io: UnsafeMutablePointer<AVIOContext>?
        let opened = client.map { $0.open(&io) }
            ?? avio_open2(&io, url.libavformatURL, AVIO_FLAG_WRITE, &context.pointee.interrupt_callback, &options)
        guard opened >= 0 else {
            if opened == FFmpegError.exit.code { throw .io("\(url): stopped before it was opened") }
            if let path = url.filePath {
                throw .cannotCreate("--to '\(path)' cannot be created: \(FFmpegError(code: opened))")
            }
            throw .io("cannot open \(url): \(FFmpegError(code: opened))")
        }
        context.pointee.pb = io
        let header = avformat_write_header(context, &options)
        guard header >= 0 else { throw .io("cannot write the \(url.container.muxerName) header to \(url): \(FFmpegError(code: header))") }
        headerWritten = true
        streamTimeBase = stream.pointee.time_base
    }

    /// Writes one packet; the muxer takes its own reference, the shared packet stays untouched.
    ///
    /// The corresponding C function is `av_interleaved_write_frame`.
    public func write(_ packet: EncodedPacket) throws(FFmpegError) {
        guard let context, let payload = packet.payload as? AVPacketPayload else { return }
        try check(av_packet_ref(outgoing, payload.packet))
        av_packet_rescale_ts(outgoing, encoderTimeBase, streamTimeBase)
        outgoing.pointee.stream_index = 0
        try check(av_interleaved_write_frame(context, outgoing))
    }

    /// Writes the trailer (the index a player needs) and closes the destination.
    ///
    /// The corresponding C functions are `av_write_trailer` and `avio_closep`.
    /// - Throws: when the trailer could not be written (disk full, peer gone).
    public func finish() throws(FFmpegError) {
        guard let context else { return }
        defer { close() }
        if headerWritten {
            headerWritten = false
            try check(av_write_trailer(context))
        }
    }

    private func close() {
        guard let context else { return }
        if let client {
            client.close(&context.pointee.pb)
        } else if context.pointee.pb != nil {
            avio_closep(&context.pointee.pb)
        }
        avformat_free_context(context)
        self.context = nil
    }
}

/// libavformat's output to a client's socket: an `AVIOContext` whose writes wait for the socket a
/// tenth of a second at a time, so a stop (`interrupt`) gets through to a client that stopped reading.
private final class SocketWriter {
    let descriptor: Int32
    let interrupt: StopFlag

    init(descriptor: Int32, interrupt: StopFlag) {
        self.descriptor = descriptor
        self.interrupt = interrupt
    }

    deinit { Glibc.close(descriptor) }

    /// Makes the `AVIOContext`; returns 0 or a negative AVERROR, as `avio_open2` does.
    func open(_ io: inout UnsafeMutablePointer<AVIOContext>?) -> Int32 {
        let size = 32_768
        guard let buffer = av_malloc(size) else { return cffmpeg_averror(ENOMEM) }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        let bytes = buffer.assumingMemoryBound(to: UInt8.self)
        io = avio_alloc_context(bytes, Int32(size), 1, opaque, nil, { opaque, bytes, count in
            guard let opaque, let bytes else { return cffmpeg_averror(EINVAL) }
            return Unmanaged<SocketWriter>.fromOpaque(opaque).takeUnretainedValue().send(bytes, count: Int(count))
        }, nil)
        guard io != nil else {
            av_free(buffer)
            return cffmpeg_averror(ENOMEM)
        }
        return 0
    }

    /// Frees what `open` made; the socket is closed with the writer.
    func close(_ io: inout UnsafeMutablePointer<AVIOContext>?) {
        guard let context = io else { return }
        avio_flush(context)
        av_free(context.pointee.buffer)
        avio_context_free(&io)
    }

    private func send(_ bytes: UnsafePointer<UInt8>, count: Int) -> Int32 {
        var offset = 0
        while offset < count {
            if interrupt.isRaised { return cffmpeg_averror_exit() }
            var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let polled = poll(&ready, 1, 100)
            if polled == 0 || (polled < 0 && errno == EINTR) { continue }
            let sent = polled < 0 ? -1 : Glibc.send(descriptor, bytes + offset, count - offset, Int32(MSG_NOSIGNAL))
            if sent > 0 {
                offset += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EINTR) {
                continue
            } else {
                return cffmpeg_averror(sent < 0 ? errno : EPIPE)
            }
        }
        return Int32(count)
    }
}

extension SinkURL {
    /// The container each sink writes: files by extension, MPEG-TS on the network.
    public var container: Container {
        if case .file(_, let container) = self { return container }
        return .mpegts
    }

    var isNetwork: Bool { filePath == nil }

    /// The URL handed to libavformat's protocol layer.
    var libavformatURL: String {
        switch self {
        case .file(let path, _): "file:" + path
        case .udp(let host, let port): "udp://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        case .tcp(let host, let port), .tcpListen(let host, let port, _):
            "tcp://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        }
    }

    /// Options for the protocol and the muxer.
    /// - Parameter flushInterval: the longest a complete piece of the recording (an MP4 fragment,
    ///   a Matroska cluster) may wait in the muxer: what a killed run loses at most.
    func muxerOptions(flushInterval: Duration) -> [(String, String)] {
        // A fragment or cluster is cut once it grows longer than this, and reaches the file with the
        // packet after: half the interval keeps what a kill loses within it.
        let microseconds = flushInterval.nanoseconds / 2_000
        switch self {
        case .file(_, .mp4):
            // Fragmented, so a run that is killed still leaves a playable file.
            return [("movflags", "frag_keyframe+empty_moov+default_base_moof"), ("frag_duration", "\(microseconds)")]
        case .file(_, .matroska):
            // A cluster starts at each keyframe too.
            return [("cluster_time_limit", "\(microseconds / 1_000)")]
        case .file:
            return []
        case .udp:
            // Seven 188-byte TS packets a datagram: the usual size that fits any Ethernet MTU.
            return [("pkt_size", "1316")]
        case .tcp:
            return [("timeout", "5000000")]
        case .tcpListen:
            // Clients are accepted by `ClientListener`; each one's muxer writes to its socket.
            return []
        }
    }
}

extension SinkURL.Container {
    var displayName: String {
        switch self {
        case .matroska: "Matroska (.mkv)"
        case .mp4: "MP4 (.mp4)"
        case .mpegts: "MPEG-TS"
        case .flv: "FLV (.flv)"
        }
    }
}
