import CFFmpeg
import Glibc
import PodiumCore

/// Writes encoded packets of one or more streams to one destination with a libavformat muxer: a
/// file, MPEG-TS over UDP or TCP, or a listener's client.
///
/// Not thread-safe: confine to the output's own thread (opening a TCP connection blocks until it
/// connects). Each connection gets a muxer of its own.
final class MuxerSink {
    private let url: MuxerTarget
    private let route: OutputRoute
    private let streams: [StreamDescription]
    /// Each stream's codec parameters, in the order of `streams`.
    private let parameters: [UnsafeMutablePointer<AVCodecParameters>]
    private let interrupt: StopFlag
    private var context: UnsafeMutablePointer<AVFormatContext>?
    /// The time base each stream got from the muxer, which may differ from the encoder's.
    private var streamTimeBases: [AVRational] = []
    private var headerWritten = false
    /// When this connection's first packet was taken, in microseconds of the stream's timeline.
    private var origin: Int64?
    /// A client's connected socket that the muxer writes to instead of opening `url` (a listener's guest).
    private let client: SocketWriter?
    /// Spreads datagrams over each frame's interval, for a route that paces them.
    private var pacer: DatagramPacer?
    /// The last picture, for a route that holds pictures until the next comes, and the cut it was
    /// taken with.
    private var heldPicture: (packet: EncodedPacket, cut: Int64)?
    /// Microseconds cut out of the timeline so far (a recording's pauses), for the packets to come.
    var cut: Int64 = 0
    private let ownedOutgoing: OwnedPacket
    private var outgoing: UnsafeMutablePointer<AVPacket> { ownedOutgoing.pointer }

    /// Keeps the streams' parameters; opens nothing yet.
    ///
    /// - Parameters:
    ///   - streams: what is written.
    ///   - interrupt: when raised, blocking network I/O (waiting for a TCP client, say) gives up.
    ///   - client: a connected socket to write to; `nil` opens the route's destination.
    init?(url: MuxerTarget, route: OutputRoute, streams: [StreamDescription], interrupt: StopFlag,
          client: SocketWriter?) {
        guard let outgoing = OwnedPacket() else { return nil }
        ownedOutgoing = outgoing
        self.url = url
        self.route = route
        self.streams = streams
        self.interrupt = interrupt
        self.client = client
        parameters = streams.compactMap { stream in
            avcodec_parameters_alloc().map { parameters in
                Self.describe(stream, in: parameters)
                return parameters
            }
        }
        guard parameters.count == streams.count else { return nil }
    }

    /// Fills libavformat's parameters of a stream from Podium's description of it.
    private static func describe(_ stream: StreamDescription, in parameters: UnsafeMutablePointer<AVCodecParameters>) {
        parameters.pointee.bit_rate = Int64(stream.bitrate?.bitsPerSecond ?? 0)
        parameters.pointee.profile = Int32(stream.profile ?? Int(FF_PROFILE_UNKNOWN))
        parameters.pointee.level = Int32(stream.level ?? Int(FF_LEVEL_UNKNOWN))
        switch stream.media {
        case .video(let video):
            let colors = video.colors
            parameters.pointee.codec_type = AVMEDIA_TYPE_VIDEO
            parameters.pointee.codec_id = video.codec.codecID
            parameters.pointee.width = Int32(video.size.width)
            parameters.pointee.height = Int32(video.size.height)
            parameters.pointee.format = colors.ffmpegPixelFormat.rawValue
            parameters.pointee.color_range = colors.ffmpegRange
            parameters.pointee.color_space = colors.ffmpegMatrix
            parameters.pointee.color_primaries = colors.ffmpegPrimaries
            parameters.pointee.color_trc = colors.ffmpegTransfer
            parameters.pointee.chroma_location = colors.ffmpegChromaLocation
        case .audio(let audio):
            parameters.pointee.codec_type = AVMEDIA_TYPE_AUDIO
            parameters.pointee.codec_id = audio.codec.codecID
            parameters.pointee.sample_rate = Int32(audio.sampleRate)
            av_channel_layout_default(&parameters.pointee.ch_layout, Int32(audio.channels))
            parameters.pointee.frame_size = Int32(audio.samplesPerPacket)
        }
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
        for parameters in parameters {
            var pointer: UnsafeMutablePointer<AVCodecParameters>? = parameters
            avcodec_parameters_free(&pointer)
        }
    }

    /// Opens the destination and writes the container header; blocks while a TCP peer is awaited.
    ///
    /// The corresponding C functions are `avformat_alloc_output_context2`, `avio_open2` and `avformat_write_header`.
    func open() throws(PodiumError) {
        var context: UnsafeMutablePointer<AVFormatContext>?
        let muxerName = route.container.muxerName
        guard avformat_alloc_output_context2(&context, nil, muxerName, nil) >= 0, let context else {
            throw .software("cannot create a \(muxerName) muxer")
        }
        self.context = context
        for parameters in parameters {
            guard let stream = avformat_new_stream(context, nil) else {
                throw .software("cannot add a stream to \(url)")
            }
            avcodec_parameters_copy(stream.pointee.codecpar, parameters)
        }
        for (index, description) in streams.enumerated() {
            context.pointee.streams[index]?.pointee.time_base = AVRational(num: 1, den: Int32(description.timeScale))
        }

        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        for (key, value) in route.options { av_dict_set(&options, key, value, 0) }
        // Each packet, fragment or cluster goes to the OS as soon as the muxer completes it, so a
        // killed run leaves all but the last moments readable (libavformat would keep 32 KiB).
        context.pointee.flags |= AVFMT_FLAG_FLUSH_PACKETS

        var callback = AVIOInterruptCB()
        callback.callback = { opaque in
            guard let opaque else { return 0 }
            return Unmanaged<StopFlag>.fromOpaque(opaque).takeUnretainedValue().isRaised ? 1 : 0
        }
        callback.opaque = Unmanaged.passUnretained(interrupt).toOpaque()
        context.pointee.interrupt_callback = callback

        var io: UnsafeMutablePointer<AVIOContext>?
        let rejectionsBefore = SRTLog.rejectionCount
        var opened: Int32 = 0
        var transcript: [String] = []
        switch (route.destination, client) {
        case (_, let client?):
            opened = client.open(&io)
        case (.libavformat(let address), nil):
            (opened, transcript) = FFmpegLog.transcribing {
                avio_open2(&io, address, AVIO_FLAG_WRITE, &context.pointee.interrupt_callback, &options)
            }
        case (.muxer(let address), nil):
            // The muxer connects as it writes the header, below.
            context.pointee.url = av_strdup(address)
        case (.clients, nil):
            throw .software("\(url): a listener's muxer needs a client")
        }
        /// Why the connection (or file) could not be opened, in Podium's words or the server's.
        func openingFailed(_ code: Int32) -> PodiumError {
            if code == FFmpegError.exit.code { return .io("\(url): stopped before it was opened") }
            if route.isLocal {
                return .cannotCreate("cannot be created: \(FFmpegError(code: code))", about: .output("\(url)"))
            }
            if let reason = ServerRefusal.reason(for: url, code: code, transcript: transcript,
                                                 srtRejection: SRTLog.rejection(since: rejectionsBefore)) {
                return .refused("\(url): \(reason)")
            }
            return .io("cannot open \(url): \(FFmpegError(code: code))")
        }
        guard opened >= 0 else { throw openingFailed(opened) }
        if route.pacesDatagrams, let inner = io, let rate = streams.lazy.compactMap(\.video).first?.framesPerSecond {
            let pacer = DatagramPacer(inner: inner, datagramSize: route.datagramSize, framesPerSecond: rate,
                                      interrupt: interrupt)
            io = nil
            guard pacer.open(&io) >= 0 else { throw .io("cannot open \(url): out of memory") }
            self.pacer = pacer
        }
        context.pointee.pb = io
        if case .muxer = route.destination {
            (opened, transcript) = FFmpegLog.transcribing { avformat_write_header(context, &options) }
            guard opened >= 0 else { throw openingFailed(opened) }
        } else {
            let header = avformat_write_header(context, &options)
            guard header >= 0 else {
                throw .io("cannot write the \(muxerName) header to \(url): \(FFmpegError(code: header))")
            }
        }
        headerWritten = true
        streamTimeBases = (0..<streams.count).map { context.pointee.streams[$0]?.pointee.time_base ?? AVRational() }
    }

    /// Writes one packet (a picture, on a route that holds pictures, once the next one comes); the
    /// muxer takes its own reference, the shared packet stays untouched.
    func write(_ packet: EncodedPacket) throws(FFmpegError) {
        guard route.holdsPictures, let index = streams.firstIndex(where: { $0.id == packet.streamID }),
              streams[index].video != nil else {
            return try send(packet, duration: packet.duration, cut: cut)
        }
        if let held = heldPicture {
            try send(held.packet, duration: duration(of: held, until: packet, scale: streams[index].timeScale),
                     cut: held.cut)
        }
        heldPicture = (packet, cut)
    }

    /// How long the held picture lasts: until `next`, in the file's time (a pause cut out between
    /// them is not shown).
    private func duration(of held: (packet: EncodedPacket, cut: Int64), until next: EncodedPacket,
                          scale: Int) -> Int64 {
        let cutBetween = (cut - held.cut) * Int64(scale) / 1_000_000
        return max(1, next.presentationTime - held.packet.presentationTime - cutBetween)
    }

    /// Starts this destination's timeline at `microseconds` of the run's (pauses cut out): a new
    /// file of a split recording starts at zero.
    func startTimeline(at microseconds: Int64) {
        origin = microseconds
    }

    /// Hands one packet, said to last `duration`, to the muxer, `cut` microseconds earlier.
    ///
    /// The corresponding C function is `av_interleaved_write_frame`.
    private func send(_ packet: EncodedPacket, duration: Int64, cut: Int64) throws(FFmpegError) {
        guard let context, let payload = packet.payload as? AVPacketPayload,
              let index = streams.firstIndex(where: { $0.id == packet.streamID }) else { return }
        try check(av_packet_ref(outgoing, payload.packet))
        // Each connection's timeline starts at zero, as a fresh publisher's does: a media server
        // that Podium connects to again would otherwise see the stream begin minutes in.
        let timeBase = AVRational(num: 1, den: Int32(streams[index].timeScale))
        let microsecond = AVRational(num: 1, den: 1_000_000)
        let origin = self.origin
            ?? (route.rebasesTimeline ? av_rescale_q(outgoing.pointee.dts, timeBase, microsecond) : 0)
        self.origin = origin
        let shift = av_rescale_q(origin + cut, microsecond, timeBase)
        outgoing.pointee.pts -= shift
        outgoing.pointee.dts -= shift
        outgoing.pointee.duration = duration
        av_packet_rescale_ts(outgoing, timeBase, streamTimeBases[index])
        outgoing.pointee.stream_index = Int32(index)
        // A picture's datagrams are spread over its share of time. A sound packet is a datagram or
        // two and rides along: the muxer interleaves, so a picture may go out during a sound
        // packet's write, and must keep its own spacing.
        if streams[index].video != nil { pacer?.beginPacket(bytes: packet.size) }
        try check(av_interleaved_write_frame(context, outgoing))
    }

    /// Writes the trailer (the index a player needs) and closes the destination.
    ///
    /// The corresponding C functions are `av_write_trailer` and `avio_closep`.
    /// - Parameter next: the picture the next file starts with (a split recording): the last one
    ///   here lasts until it, so that the files, one after the other, keep the run's time line.
    /// - Throws: when the trailer could not be written (disk full, peer gone).
    func finish(before next: EncodedPacket? = nil) throws(FFmpegError) {
        guard let context else { return }
        defer { close() }
        if headerWritten {
            if let held = heldPicture {
                heldPicture = nil
                let scale = streams.first { $0.id == held.packet.streamID }?.timeScale ?? 1
                let lasting = next.map { duration(of: held, until: $0, scale: scale) } ?? held.packet.duration
                try send(held.packet, duration: lasting, cut: held.cut)
            }
            headerWritten = false
            try check(av_write_trailer(context))
        }
    }

    private func close() {
        guard let context else { return }
        if let client {
            client.close(&context.pointee.pb)
        } else if let pacer {
            pacer.close(&context.pointee.pb)
            self.pacer = nil
        } else if context.pointee.pb != nil {
            avio_closep(&context.pointee.pb)
        }
        avformat_free_context(context)
        self.context = nil
    }
}
