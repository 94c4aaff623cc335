import CFFmpeg
public import PodiumCore

/// Compresses the run's sound with one libavcodec encoder (FFmpeg's own `aac`, or `libopus`),
/// once for every output.
///
/// The sound arrives mixed and placed (`SoundPlacer`), one unbroken track from the run's first
/// slot; libswresample only lays it out as the encoder wants it (planar for `aac`). Packet times
/// count samples from the run's first slot, at 48 kHz.
///
/// Not thread-safe: made on the sound stage's thread, which owns the contexts, and used there alone.
public final class AudioEncoder: SoundEncoding {
    public let stream: StreamDescription
    public let codec: AudioCodec
    public let bitrate: Bitrate
    /// The libavcodec encoder's name, such as `aac`.
    public let name: String

    private let ownedContext: OwnedCodecContext
    private let ownedFrame: OwnedFrame
    private let ownedConverted: OwnedFrame
    private let ownedPacket: OwnedPacket
    /// Lays the interleaved sound out as the encoder takes it.
    private let converter: OwnedResampler
    private let fifo: OwnedAudioFifo
    private var context: UnsafeMutablePointer<AVCodecContext> { ownedContext.pointer }
    /// A frame of the encoder's size, sent to it.
    private var frame: UnsafeMutablePointer<AVFrame> { ownedFrame.pointer }
    /// What the converter made of one block, in the encoder's format; grows for a larger block.
    private var converted: UnsafeMutablePointer<AVFrame> { ownedConverted.pointer }
    private var packet: UnsafeMutablePointer<AVPacket> { ownedPacket.pointer }
    /// Samples a channel each frame sent holds.
    private let frameSize: Int
    /// Samples a channel sent so far: the next frame's time.
    private var sent: Int64 = 0
    private var flushed = false
    /// Whether the encoder takes a last frame shorter than the others.
    private let takesShortLastFrame: Bool

    /// The encoders Podium uses for each codec.
    static func encoderName(for codec: AudioCodec) -> String {
        switch codec {
        case .aac: "aac"
        case .opus: "libopus"
        }
    }

    /// Opens the encoder and its converter.
    ///
    /// The corresponding C functions are `avcodec_open2` and `swr_init`.
    /// - Parameters:
    ///   - globalHeader: put the codec's configuration in extradata, as MP4, Matroska and FLV require.
    ///   - streamID: the id its packets and `stream` carry.
    /// - Throws: 69 when the encoder is not in this FFmpeg or does not open.
    public init(codec: AudioCodec, bitrate: Bitrate, globalHeader: Bool, streamID: Int) throws(PodiumError) {
        let name = Self.encoderName(for: codec)
        guard let encoder = avcodec_find_encoder_by_name(name) else {
            throw .unavailable("the \(name) encoder is not in this FFmpeg (\(codec) sound)")
        }
        guard let format = Self.sampleFormat(for: encoder) else {
            throw .unavailable("\(name) takes none of the sample formats Podium makes (fltp, flt, s16)")
        }
        guard let owned = OwnedCodecContext(encoder), let frame = OwnedFrame(), let converted = OwnedFrame(),
              let packet = OwnedPacket(), let fifo = OwnedAudioFifo(av_audio_fifo_alloc(format, 2, 4_096))
        else {
            throw .software("out of memory opening \(name)")
        }
        let context = owned.pointer
        context.pointee.sample_fmt = format
        context.pointee.sample_rate = Int32(SoundFormat.sampleRate)
        context.pointee.bit_rate = Int64(bitrate.bitsPerSecond)
        context.pointee.time_base = AVRational(num: 1, den: Int32(SoundFormat.sampleRate))
        av_channel_layout_default(&context.pointee.ch_layout, Int32(SoundFormat.channels))
        if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        let opened = FFmpegLog.quietly { avcodec_open2(context, encoder, nil) }
        guard opened >= 0 else {
            throw .unavailable("\(name) does not open at \(bitrate)bit/s: \(FFmpegError(code: opened))")
        }
        frameSize = context.pointee.frame_size > 0 ? Int(context.pointee.frame_size) : 1_024
        var made: OpaquePointer?
        var input = AVChannelLayout()
        av_channel_layout_default(&input, Int32(SoundFormat.channels))
        let rate = Int32(SoundFormat.sampleRate)
        guard swr_alloc_set_opts2(&made, &context.pointee.ch_layout, format, rate, &input, AV_SAMPLE_FMT_FLT, rate,
                                  0, nil) >= 0, let converter = OwnedResampler(made) else {
            throw .software("out of memory opening the sound converter")
        }
        guard swr_init(converter.pointer) >= 0 else { throw .software("the sound converter does not open") }

        let sound = frame.pointer
        sound.pointee.format = format.rawValue
        sound.pointee.nb_samples = Int32(frameSize)
        sound.pointee.sample_rate = rate
        av_channel_layout_copy(&sound.pointee.ch_layout, &context.pointee.ch_layout)
        guard av_frame_get_buffer(sound, 0) >= 0 else { throw .software("out of memory opening \(name)") }
        converted.pointer.pointee.format = format.rawValue
        converted.pointer.pointee.sample_rate = rate
        av_channel_layout_copy(&converted.pointer.pointee.ch_layout, &context.pointee.ch_layout)

        let extradata = context.pointee.extradata.map {
            Array(UnsafeBufferPointer(start: $0, count: Int(context.pointee.extradata_size)))
        } ?? []
        let audio = StreamDescription.Audio(codec: codec, sampleRate: SoundFormat.sampleRate,
                                            channels: SoundFormat.channels, samplesPerPacket: frameSize)
        stream = StreamDescription(id: streamID, media: .audio(audio), timeScale: SoundFormat.sampleRate,
                                   extradata: extradata, bitrate: bitrate)
        self.codec = codec
        self.bitrate = bitrate
        self.name = name
        ownedContext = owned
        ownedFrame = frame
        ownedConverted = converted
        ownedPacket = packet
        self.converter = converter
        takesShortLastFrame = encoder.pointee.capabilities & AV_CODEC_CAP_SMALL_LAST_FRAME != 0
        self.fifo = fifo
    }

    /// `aac with aac (48 kHz stereo, 128k)`.
    public var summary: String { "\(codec) with \(name) (48 kHz stereo, \(bitrate)bit/s)" }

    /// The first of the formats Podium can resample to that the encoder takes, best first.
    private static func sampleFormat(for encoder: UnsafePointer<AVCodec>) -> AVSampleFormat? {
        let preferred = [AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_S16]
        guard let formats = encoder.pointee.sample_fmts else { return preferred[0] }
        var taken: [AVSampleFormat] = []
        var index = 0
        while formats[index] != AV_SAMPLE_FMT_NONE {
            taken.append(formats[index])
            index += 1
        }
        return preferred.first(where: taken.contains)
    }

    /// Lays `samples` out for the encoder, and encodes every whole frame there is.
    ///
    /// The corresponding C functions are `swr_convert` and `avcodec_send_frame`.
    public func encode(_ samples: UnsafeBufferPointer<Float>, emit: (EncodedPacket) -> Void) throws(PodiumError) {
        let frames = samples.count / SoundFormat.channels
        let room = Int(swr_get_out_samples(converter.pointer, Int32(frames)))
        do {
            try reserve(room)
            let made = try samples.withMemoryRebound(to: UInt8.self) { bytes throws(FFmpegError) -> Int32 in
                var input: UnsafePointer<UInt8>? = bytes.baseAddress
                return try withUnsafeMutablePointer(to: &input) { inputs throws(FFmpegError) -> Int32 in
                    try check(swr_convert(converter.pointer, converted.pointee.extended_data, Int32(room), inputs,
                                          Int32(frames)))
                }
            }
            try queue(made)
            try encodeWholeFrames(emit)
        } catch {
            throw .software("\(name): \(error)")
        }
    }

    /// Ends the stream: what the converter and the buffer held is encoded (the last frame padded
    /// with silence), then the encoder's own delay.
    public func flush(emit: (EncodedPacket) -> Void) throws(PodiumError) {
        guard !flushed else { return }
        flushed = true
        do {
            let room = Int(swr_get_out_samples(converter.pointer, 0))
            if room > 0 {
                try reserve(room)
                try queue(try check(swr_convert(converter.pointer, converted.pointee.extended_data, Int32(room),
                                                nil, 0)))
            }
            try encodeWholeFrames(emit)
            let left = Int(av_audio_fifo_size(fifo.pointer))
            if left > 0 {
                try check(av_frame_make_writable(frame))
                av_samples_set_silence(frame.pointee.extended_data, 0, Int32(frameSize), Int32(SoundFormat.channels),
                                       AVSampleFormat(rawValue: frame.pointee.format))
                try read(left)
                // An encoder that takes a short last frame ends the sound where it ends; others
                // get it padded with silence.
                if takesShortLastFrame { frame.pointee.nb_samples = Int32(left) }
                try send(frame, emit)
            }
            try send(nil, emit)
        } catch {
            throw .software("\(name): \(error)")
        }
    }

    /// Makes room for `count` samples a channel in `converted`; allocates only when it must grow.
    private func reserve(_ count: Int) throws(FFmpegError) {
        guard count > Int(converted.pointee.nb_samples) || converted.pointee.extended_data == nil else { return }
        let format = converted.pointee.format
        av_frame_unref(converted)
        converted.pointee.format = format
        converted.pointee.sample_rate = Int32(SoundFormat.sampleRate)
        av_channel_layout_copy(&converted.pointee.ch_layout, &context.pointee.ch_layout)
        converted.pointee.nb_samples = Int32(max(count, SoundFormat.sampleRate / 10))
        try check(av_frame_get_buffer(converted, 0))
    }

    /// Appends the first `count` samples of `converted` to the buffer.
    private func queue(_ count: Int32) throws(FFmpegError) {
        guard count > 0 else { return }
        let written = converted.pointee.extended_data.withMemoryRebound(to: UnsafeMutableRawPointer?.self,
                                                                       capacity: SoundFormat.channels) {
            av_audio_fifo_write(fifo.pointer, $0, count)
        }
        guard written == count else { throw FFmpegError(code: cffmpeg_averror(ENOMEM)) }
    }

    /// Sends every whole frame the buffer holds.
    private func encodeWholeFrames(_ emit: (EncodedPacket) -> Void) throws(FFmpegError) {
        while Int(av_audio_fifo_size(fifo.pointer)) >= frameSize {
            try check(av_frame_make_writable(frame))
            try read(frameSize)
            try send(frame, emit)
        }
    }

    /// Reads `count` samples a channel from the buffer into the front of `frame`.
    private func read(_ count: Int) throws(FFmpegError) {
        let read = frame.pointee.extended_data.withMemoryRebound(to: UnsafeMutableRawPointer?.self,
                                                                capacity: SoundFormat.channels) {
            av_audio_fifo_read(fifo.pointer, $0, Int32(count))
        }
        guard read == Int32(count) else { throw FFmpegError(code: cffmpeg_averror(EIO)) }
    }

    /// Sends `frame` (`nil`: the end), stamped with its place, and hands out the packets ready.
    private func send(_ frame: UnsafeMutablePointer<AVFrame>?, _ emit: (EncodedPacket) -> Void) throws(FFmpegError) {
        if let frame {
            frame.pointee.pts = sent
            sent += Int64(frame.pointee.nb_samples)
        }
        try check(avcodec_send_frame(context, frame))
        while true {
            let received = avcodec_receive_packet(context, packet)
            if received == cffmpeg_averror_eagain() || received == cffmpeg_averror_eof() { return }
            try check(received)
            guard let payload = AVPacketPayload(movingFrom: packet) else {
                throw FFmpegError(code: cffmpeg_averror(ENOMEM))
            }
            let made = payload.packet.pointee
            emit(EncodedPacket(streamID: stream.id, presentationTime: made.pts, duration: made.duration,
                               isKeyframe: true, payload: payload))
        }
    }
}
