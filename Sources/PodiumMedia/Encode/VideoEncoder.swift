import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif
public import PodiumCore

/// Compresses pictures with one libavcodec encoder: the shared pictures the encode stage makes
/// (`YUVPicture`), one of the encoder's size referenced as it is, another scaled into its own.
///
/// Packets are stamped with their frame's slot on the frame-rate grid, in microseconds, so the
/// output keeps real time even when capture skipped frames (variable frame rate), and no two
/// packets share a tick.
/// Not thread-safe: made on its rendition's thread, which owns the `AVCodecContext`, and used there alone.
public final class VideoEncoder: PictureEncoding {
    /// The libavcodec encoder's name, such as `libx264` (software's after a fall back from the GPU's).
    public private(set) var name: String
    /// The settings it encodes with now: those it opened with, but for a rate changed since.
    public private(set) var settings: EncoderSettings
    /// The rate it opened with, which the run's tuning moves.
    private let plannedRate: EncoderRate
    /// The pixel format it encodes.
    public private(set) var pixelFormatName: String
    /// The speed preset in effect: the user's, or Podium's low-latency default for this encoder.
    public var preset: String? {
        settings.preset ?? Self.liveOptions(for: name).first(where: { $0.0 == "preset" })?.1
    }
    /// Timestamps are in microseconds.
    static let timeBase = AVRational(num: 1, den: 1_000_000)
    /// What this encoder produces, for the outputs it feeds.
    public let stream: StreamDescription

    private var ownedContext: OwnedCodecContext
    /// An encoder opened at the rate the run asks for now, with the same stream parameters, which
    /// takes over at the next frame with a keyframe (encoders that cannot change their rate in flight).
    private var successor: Successor?
    private struct Successor: ~Copyable {
        let context: OwnedCodecContext
        let settings: EncoderSettings
    }
    /// What opening another context takes.
    private var codec: UnsafePointer<AVCodec>
    /// The format of the pictures it is given (a GPU's encoder gets them uploaded as NV12).
    private let format: AVPixelFormat
    private let globalHeader: Bool
    private let ownedFrame: OwnedFrame
    private let ownedPacket: OwnedPacket
    var context: UnsafeMutablePointer<AVCodecContext> { ownedContext.pointer }
    private var frame: UnsafeMutablePointer<AVFrame> { ownedFrame.pointer }
    private var packet: UnsafeMutablePointer<AVPacket> { ownedPacket.pointer }
    /// Scales shared pictures of another size into the encoder's picture.
    private var scaler: YUVScaler?
    /// A shared picture of the encoder's size, referenced rather than copied, while it is sent.
    private let ownedBorrowed: OwnedFrame
    private var borrowed: UnsafeMutablePointer<AVFrame> { ownedBorrowed.pointer }
    private var sendsBorrowed = false
    /// The size of the pictures made for it as planned: they fill the encoder's picture
    /// (stretched, as `--size` asks); any other size (the screen was resized) is fitted.
    private let plannedPicture: PixelSize
    private var flushed = false
    private var sentFrame = false
    /// The GPU's surfaces the pictures are uploaded to, while a VAAPI encoder encodes.
    private var hardware: VAAPIFrames?
    /// Its device, while it encodes.
    private var gpu: String?
    /// Pictures sent to the encoder in all, for what a failure says.
    private var picturesSent = 0
    /// The next picture must be a keyframe: the GPU's encoder made one of its own to learn its
    /// parameter sets, or software took over from it.
    private var keyframeOwed = false
    /// What the user should hear of the encoder chosen: the GPU's not taken, or left for software.
    private var notice: EncoderNotice?
    /// The software encoder that takes over if the GPU's fails, chosen at the start: finding it
    /// opens a probe, which the failing picture should not wait for.
    private var softwareFallback: UnsafePointer<AVCodec>?

    /// Opens the encoder.
    ///
    /// The corresponding C function is `avcodec_open2`.
    /// - Parameters:
    ///   - plannedPicture: the size of the largest picture the encode stage makes as planned.
    ///   - globalHeader: put parameter sets in extradata, as MP4, Matroska and FLV require.
    ///   - streamID: the id its packets and `stream` carry.
    /// - Throws: 64 when a user's `--preset` is refused, 69 when the encoder cannot open here.
    public init(settings: EncoderSettings, plannedPicture: PixelSize, globalHeader: Bool, streamID: Int = 0)
        throws(PodiumError) {
        let pick = try EncoderCatalog.pick(for: settings)
        var hardwareContext: OwnedCodecContext?
        var surfaces: VAAPIFrames?
        var header: [UInt8] = []
        var notice = pick.declined
        if let device = pick.vaapiDevice {
            do {
                hardwareContext = try Self.openHardware(pick.encoder, device: device, settings: settings,
                                                        globalHeader: globalHeader, frames: &surfaces,
                                                        extradata: &header)
            } catch {
                notice = "\(pick.encoder.name) on \(device) did not open (\(error.message))"
            }
        }
        let onHardware = surfaces != nil
        let encoder = !onHardware && pick.vaapiDevice != nil
            ? try EncoderCatalog.software(for: settings.codec) : pick.encoder
        name = encoder.name
        self.settings = settings
        self.plannedPicture = plannedPicture
        guard let format = Self.pixelFormat(for: encoder) ?? (onHardware ? AV_PIX_FMT_YUV420P : nil) else {
            throw .unavailable(
                "encoder \(encoder.name) takes none of the pixel formats Podium produces (yuv420p, yuvj420p)")
        }
        // The GPU's encoder gets its pictures as NV12 surfaces.
        pixelFormatName = onHardware ? "nv12" : String(cString: av_get_pix_fmt_name(format))
        gpu = onHardware ? pick.vaapiDevice : nil
        plannedRate = settings.rate
        codec = encoder
        self.format = format
        self.globalHeader = globalHeader
        guard let frame = OwnedFrame(), let packet = OwnedPacket(), let borrowed = OwnedFrame() else {
            throw .software("out of memory opening \(encoder.name)")
        }
        let owned: OwnedCodecContext
        if let context = hardwareContext.take() {
            owned = context
            hardware = surfaces
            keyframeOwed = true
            softwareFallback = try? EncoderCatalog.software(for: settings.codec)
        } else {
            owned = try Self.openSoftware(encoder, settings: settings, format: format, globalHeader: globalHeader)
            if let said = notice { notice = "\(said); \(encoder.name) encodes instead" }
        }
        self.notice = notice.map { EncoderNotice($0) }
        let context = owned.pointer
        stream = Self.describe(context, id: streamID, settings: settings, extradata: onHardware ? header : nil)
        let picture = frame.pointer
        picture.pointee.format = format.rawValue
        picture.pointee.width = Int32(settings.size.width)
        picture.pointee.height = Int32(settings.size.height)
        picture.pointee.color_range = Self.colors(format).ffmpegRange
        guard av_frame_get_buffer(picture, 0) >= 0 else { throw .software("cannot allocate a \(settings.size) frame") }
        ownedContext = owned
        ownedFrame = frame
        ownedPacket = packet
        ownedBorrowed = borrowed
    }

    /// Opens a software encoder, saying what of the settings it refuses.
    private static func openSoftware(
        _ encoder: UnsafePointer<AVCodec>, settings: EncoderSettings, format: AVPixelFormat, globalHeader: Bool
    ) throws(PodiumError) -> OwnedCodecContext {
        do {
            return try openContext(encoder, settings: settings, format: format, globalHeader: globalHeader)
        } catch {
            if let preset = settings.preset,
               opens(encoder, codec: settings.codec, settings: settings, ignoringPreset: true) {
                throw .usage("not a preset of \(encoder.name)", about: .preset(preset))
            }
            // An encoder that opens at a common size was refused this one.
            var common = settings
            common.size = PixelSize(width: 640, height: 360)
            if settings.size != common.size, opens(encoder, codec: settings.codec, settings: common) {
                throw .usage("\(encoder.name) cannot encode pictures of this size", about: .size(settings.size),
                             remedy: .otherSize)
            }
            throw error
        }
    }

    /// Opens a VAAPI encoder on `device`, and has it encode a black picture: a driver that
    /// writes no stream header gives its parameter sets with its first keyframe, and one that
    /// opens and then refuses pictures is found out here, before the run counts on it.
    /// - Parameters:
    ///   - frames: set to its surfaces once it encoded.
    ///   - extradata: set to the stream's parameter sets.
    /// - Returns: the context.
    private static func openHardware(
        _ encoder: UnsafePointer<AVCodec>, device: String, settings: EncoderSettings, globalHeader: Bool,
        frames opened: inout VAAPIFrames?, extradata header: inout [UInt8]
    ) throws(PodiumError) -> OwnedCodecContext {
        let frames: VAAPIFrames
        do {
            frames = try VAAPIFrames(device: device, size: settings.size)
        } catch {
            throw .unavailable("no device: \(error)")
        }
        let owned = try openContext(encoder, settings: settings, format: AV_PIX_FMT_VAAPI, globalHeader: globalHeader,
                                    frames: frames.frames)
        var extradata = extradata(of: owned.pointer)
        do {
            let parameterSets = try firstParameterSets(owned.pointer, frames: frames, codec: settings.codec)
            if extradata.isEmpty { extradata = parameterSets }
        } catch {
            throw .unavailable("its first picture failed: \(error)")
        }
        opened = frames
        header = extradata
        return owned
    }

    /// Encodes a black picture and returns the parameter sets its packet starts with (H.264's
    /// SPS and PPS, HEVC's VPS too), as a stream header in Annex B; the packet is dropped.
    private static func firstParameterSets(
        _ context: UnsafeMutablePointer<AVCodecContext>, frames: VAAPIFrames, codec: VideoCodec
    ) throws(FFmpegError) -> [UInt8] {
        guard let ownedBlack = OwnedFrame(), let ownedPacket = OwnedPacket() else {
            throw FFmpegError(code: cffmpeg_averror(ENOMEM))
        }
        let black = ownedBlack.pointer
        black.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        black.pointee.width = context.pointee.width
        black.pointee.height = context.pointee.height
        try check(av_frame_get_buffer(black, 0))
        paintBlack(black)
        black.pointee.pts = 0
        black.pointee.pict_type = AV_PICTURE_TYPE_I
        try frames.upload(black)
        try check(avcodec_send_frame(context, frames.surface))
        frames.release()
        let packet = ownedPacket.pointer
        try check(avcodec_receive_packet(context, packet))
        defer { av_packet_unref(packet) }
        let hevc = codec == .hevc
        let bytes = UnsafeRawBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size))
        var header: [UInt8] = []
        AnnexB.forEachUnit(in: bytes) { range in
            guard let first = range.first.map({ bytes[$0] }) else { return }
            let type = hevc ? (first >> 1) & 0x3F : AnnexB.h264Type(first)
            if hevc ? (32...34).contains(type) : (7...8).contains(type) {
                header += [0, 0, 0, 1] + bytes[range]
            }
        }
        return header
    }

    deinit {
        discardSuccessor()
        // The context, picture and packet are freed by their owners after this.
        if !flushed { Self.endStream(context, sendingBlankFrame: !sentFrame) }
    }

    /// What the user should hear once of the encoder chosen, if anything: the GPU's not taken, or
    /// left for software while the run went on.
    public func takeNotice() -> EncoderNotice? {
        defer { notice = nil }
        return notice
    }

    /// `h264 with libx264 (yuv420p 1920x1080, constant quality, preset ultrafast, keyframe every 2s)`.
    public var summary: String {
        let rate = settings.bitrate.map { "\($0)bit/s" }
            ?? settings.quality.map { "crf \($0.plain)" } ?? "constant quality"
        let preset = preset.map { ", preset \($0)" } ?? ""
        let device = gpu.map { " on \($0)" } ?? ""
        return "\(settings.codec) with \(name)\(device) (\(pixelFormatName) \(settings.size), \(rate)\(preset), "
            + "keyframe every \(settings.keyframeInterval.seconds.plain)s)"
    }

    /// `h264 libx264 ultrafast`.
    public var label: String { "\(settings.codec) \(name)" + (preset.map { " \($0)" } ?? "") }

    /// Where a picture of `source` size goes in the encoder's: all of it, or as large as fits
    /// with the aspect kept, on even corners and sides (4:2:0 chroma).
    private func placement(of source: PixelSize) -> PixelRect {
        let placed = FitMode.contain.placement(of: source, in: settings.size).destination
        return PixelRect(x: placed.x & ~1, y: placed.y & ~1,
                         size: PixelSize(width: max(2, placed.width & ~1), height: max(2, placed.height & ~1)))
    }

    /// Prepares the shared `picture` for `encode`: a picture of the encoder's size is referenced
    /// as it is, another is scaled into the encoder's own picture.
    ///
    /// The corresponding C functions are `av_frame_ref` and libyuv's `I420Scale`.
    /// - Returns: whether it was scaled.
    public func take(_ picture: YUVPicture) throws(PodiumError) -> Bool {
        do {
            return try borrowOrScale(picture)
        } catch {
            throw .software("\(name): \(error)")
        }
    }

    private func borrowOrScale(_ picture: YUVPicture) throws(FFmpegError) -> Bool {
        if picture.size == settings.size && picture.frame.pointee.format == frame.pointee.format {
            av_frame_unref(borrowed)
            try check(av_frame_ref(borrowed, picture.frame))
            sendsBorrowed = true
            return false
        }
        sendsBorrowed = false
        try check(av_frame_make_writable(frame))
        let area = picture.size == plannedPicture
            ? PixelRect(x: 0, y: 0, size: settings.size) : placement(of: picture.size)
        if scaler?.source != picture.size || scaler?.output != area.size {
            guard let made = try? YUVScaler(source: picture.size, output: area.size, filter: settings.scaleFilter)
            else {
                throw FFmpegError(code: cffmpeg_averror(EINVAL))
            }
            scaler = made
            if area.size != settings.size { Self.paintBlack(frame) }
        }
        scaler?.scale(picture.frame, into: frame, at: (area.x, area.y))
        return true
    }

    /// Fills a 4:2:0 picture with black in its colour range.
    private static func paintBlack(_ frame: UnsafeMutablePointer<AVFrame>) {
        let black: Int32 = frame.pointee.color_range == AVCOL_RANGE_JPEG ? 0 : 16
        for plane in 0..<3 {
            let height = plane == 0 ? Int(frame.pointee.height) : Int(frame.pointee.height + 1) / 2
            let bytes = Int(withUnsafeBytes(of: frame.pointee.linesize) {
                $0.load(fromByteOffset: plane * 4, as: Int32.self)
            }) * height
            let data = withUnsafeBytes(of: frame.pointee.data) {
                $0.load(fromByteOffset: plane * 8, as: UnsafeMutablePointer<UInt8>?.self)
            }
            if let data { memset(data, plane == 0 ? black : 128, bytes) }
        }
    }

    /// Compresses the picture `take` prepared, shown at `slotTime`.
    ///
    /// The corresponding C function is `avcodec_send_frame`.
    /// - Parameters:
    ///   - slotTime: nanoseconds since the run's first slot; the packets' times are that in microseconds.
    ///   - keyframe: force an intra picture (an output just joined, or the schedule's).
    ///   - emit: receives every packet the encoder has ready.
    public func encode(slotTime: UInt64, keyframe: Bool, emit: (EncodedPacket) -> Void) throws(PodiumError) {
        let handedOver = try handOver(emit)
        let input = sendsBorrowed ? borrowed : frame
        // The encoder keeps its own reference to a shared picture if it needs one.
        defer { if sendsBorrowed { av_frame_unref(borrowed) } }
        input.pointee.pts = stream.ticks(nanoseconds: slotTime)
        let intra = keyframe || handedOver || keyframeOwed
        input.pointee.pict_type = intra ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        keyframeOwed = false
        picturesSent += 1
        if let hardware {
            do throws(FFmpegError) {
                try hardware.upload(input)
                defer { hardware.release() }
                try check(avcodec_send_frame(context, hardware.surface))
                sentFrame = true
                try drain(emit)
                return
            } catch {
                // The same picture goes to software at once, as its first keyframe: none is lost.
                try fallBack(because: error)
                input.pointee.pict_type = AV_PICTURE_TYPE_I
            }
        }
        do {
            try check(avcodec_send_frame(context, input))
            sentFrame = true
            try drain(emit)
        } catch {
            throw .software("\(name): \(error)")
        }
    }

    /// Leaves the GPU's encoder for the codec's software one, at the same rate, on the stream the
    /// outputs have: its parameter sets go with each keyframe, so a decoder set up by the GPU's
    /// stream header takes them as they come.
    /// - Throws: 70 when no software encoder opens either.
    private func fallBack(because error: FFmpegError) throws(PodiumError) {
        let left = name
        discardSuccessor()
        guard let software = softwareFallback else {
            throw .software("\(left) failed at picture \(picturesSent) (\(error)), and no software encoder opens")
        }
        let opened = try Self.openSoftware(software, settings: settings, format: format, globalHeader: false)
        // The broken context is freed, not ended: a driver that failed may fail that too.
        ownedContext = opened
        hardware = nil
        gpu = nil
        codec = software
        name = software.name
        pixelFormatName = String(cString: av_get_pix_fmt_name(format))
        sentFrame = false
        notice = EncoderNotice("\(left) failed at picture \(picturesSent) (\(error)); \(name) encodes from here",
                               fallback: (left, name))
    }

    /// Takes a new bit rate or quality, and the frame rate, from the next frame on. libx264 takes
    /// them in flight (libavcodec reconfigures it when the context's rates or its `crf` change).
    /// For another encoder, one opened at the new rate takes over at the next frame, with a
    /// keyframe, when its stream parameters are the same (the outputs go on with the stream they
    /// have); its packets' times alone follow a new frame rate.
    ///
    /// Tuned for zero latency, x264 spends a frame's share of the bit rate as if frames came at the
    /// rate it opened with (it does not wait for the next frame to learn a frame's length): at
    /// another rate it is told the bit rate that gives each frame its share at the rate they come.
    public func retune(_ tuning: EncoderTuning) throws(PodiumError) {
        let rate = plannedRate.tuned(tuning)
        guard name == "libx264" else {
            try succeed(at: rate)
            return
        }
        switch rate {
        case .bitrate(let bitrate):
            let perFrameShare = Double(settings.framesPerSecond) / Double(max(1, tuning.framesPerSecond))
            let told = Int64((Double(bitrate.bitsPerSecond) * perFrameShare).rounded())
            context.pointee.bit_rate = told
            context.pointee.rc_max_rate = told
            // Still the same time's worth of frames at the rate they come.
            context.pointee.rc_buffer_size = Self.rateBuffer(bitrate, settings)
        case .quality(let quality):
            av_opt_set(context.pointee.priv_data, "crf", quality.plain, 0)
        }
        settings.rate = rate
    }

    /// The rate control's buffer for `bitrate`, in bits: `settings.rateBufferSeconds` of it.
    private static func rateBuffer(_ bitrate: Bitrate, _ settings: EncoderSettings) -> Int32 {
        Int32(clamping: Int((Double(bitrate.bitsPerSecond) * settings.rateBufferSeconds).rounded()))
    }

    /// Opens the encoder that takes over at `rate`, unless the one encoding (or the one waiting
    /// to) already has it.
    /// - Throws: when none opens at that rate, or only with other stream parameters (it goes on as it was).
    private func succeed(at rate: EncoderRate) throws(PodiumError) {
        guard rate != (successor?.settings.rate ?? settings.rate) else { return }
        discardSuccessor()
        guard rate != settings.rate else { return }
        var next = settings
        next.rate = rate
        let refusal = "\(name) cannot change its rate while it runs: it keeps \(settings.rate)"
        // On the GPU, another session on the same surfaces.
        let kind = hardware == nil ? format : AV_PIX_FMT_VAAPI
        guard let opened = try? Self.openContext(codec, settings: next, format: kind, globalHeader: globalHeader,
                                                 frames: hardware?.frames)
        else {
            throw .unavailable(refusal)
        }
        // The GPU's stream carries its parameter sets before each keyframe: a decoder takes new ones.
        guard hardware != nil || decodesAlike(Self.extradata(of: opened.pointer), stream.extradata) else {
            throw .unavailable("\(refusal) (at \(rate) its stream parameters differ)")
        }
        successor = Successor(context: opened, settings: next)
    }

    /// Drops the encoder that was to take over, ended as an encoder must be before it is freed.
    private func discardSuccessor() {
        if let pending = successor.take() { Self.endStream(pending.context.pointer, sendingBlankFrame: true) }
    }

    /// Lets the successor take over, if one waits: the packets the encoder held are handed out
    /// first, so the stream goes on in order.
    /// - Returns: whether it did (its first picture must then be a keyframe).
    private func handOver(_ emit: (EncodedPacket) -> Void) throws(PodiumError) -> Bool {
        guard let successor = successor.take() else { return false }
        do {
            try flush(emit: emit)
        } catch where hardware != nil {
            // The GPU's old session failed as it ended: it held no packet (one picture in flight
            // at most, none after its send), and the new session starts with a keyframe anyway.
        }
        settings = successor.settings
        ownedContext = successor.context
        flushed = false
        sentFrame = false
        return true
    }

    /// Whether a decoder set up by one stream header decodes the stream of the other: the same
    /// bytes, or for H.264 and HEVC the same parameter sets.
    private func decodesAlike(_ header: [UInt8], _ other: [UInt8]) -> Bool {
        guard header != other, [.h264, .hevc].contains(settings.codec) else { return header == other }
        let hevc = settings.codec == .hevc
        return AnnexB.decodingUnits(of: header, hevc: hevc) == AnnexB.decodingUnits(of: other, hevc: hevc)
    }

    /// Sends end-of-stream and hands out the packets the encoder still held.
    public func flush(emit: (EncodedPacket) -> Void) throws(PodiumError) {
        flushed = true
        do {
            try check(avcodec_send_frame(context, nil))
            try drain(emit)
        } catch {
            throw .software("\(name): \(error)")
        }
    }

    private func drain(_ emit: (EncodedPacket) -> Void) throws(FFmpegError) {
        while true {
            let result = avcodec_receive_packet(context, packet)
            if result == FFmpegError.tryAgain.code || result == FFmpegError.endOfFile.code { return }
            try check(result)
            guard let payload = AVPacketPayload(movingFrom: packet) else {
                throw FFmpegError(code: cffmpeg_averror(ENOMEM))
            }
            let pts = payload.packet.pointee.pts
            let isKeyframe = payload.packet.pointee.flags & AV_PKT_FLAG_KEY != 0
            emit(EncodedPacket(streamID: stream.id, presentationTime: pts, isKeyframe: isKeyframe, payload: payload))
        }
    }

    /// The stream an opened encoder produces, in Podium's words.
    private static func describe(
        _ context: UnsafeMutablePointer<AVCodecContext>, id: Int, settings: EncoderSettings, extradata header: [UInt8]?
    ) -> StreamDescription {
        let codec = context.pointee
        let video = StreamDescription.Video(
            codec: settings.codec, size: settings.size, framesPerSecond: settings.framesPerSecond,
            colors: ColorTags(range: codec.color_range == AVCOL_RANGE_JPEG ? .full : .limited))
        return StreamDescription(
            id: id, video: video, timeScale: Int(timeBase.den), extradata: header ?? extradata(of: context),
            profile: codec.profile == FF_PROFILE_UNKNOWN ? nil : Int(codec.profile),
            level: codec.level == FF_LEVEL_UNKNOWN ? nil : Int(codec.level), bitrate: settings.bitrate)
    }

    /// The parameter sets an opened encoder puts in its stream's header (none without a global header).
    private static func extradata(of context: UnsafeMutablePointer<AVCodecContext>) -> [UInt8] {
        guard let bytes = context.pointee.extradata else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(context.pointee.extradata_size)))
    }

    /// A context for `encoder` configured by `settings`, opened.
    /// - Parameter frames: a GPU's surfaces, which a hardware encoder takes its pictures in.
    private static func openContext(
        _ encoder: UnsafePointer<AVCodec>, settings: EncoderSettings, format: AVPixelFormat, globalHeader: Bool,
        frames: UnsafeMutablePointer<AVBufferRef>? = nil
    ) throws(PodiumError) -> OwnedCodecContext {
        guard let owned = OwnedCodecContext(encoder) else { throw .software("out of memory opening \(encoder.name)") }
        // Quiet: a refusal is reported once, in Podium's words with FFmpeg's reason.
        try FFmpegLog.quietly { () throws(PodiumError) in
            try configure(owned.pointer, encoder: encoder, settings: settings, format: format,
                          globalHeader: globalHeader)
            if let frames {
                owned.pointer.pointee.sw_pix_fmt = AV_PIX_FMT_NV12
                owned.pointer.pointee.hw_frames_ctx = av_buffer_ref(frames)
            }
            try open(owned.pointer, encoder: encoder)
        }
        return owned
    }

    /// Whether `encoder` opens here with a small picture; used to list and pick encoders.
    static func opens(_ encoder: UnsafePointer<AVCodec>, codec: VideoCodec, settings: EncoderSettings? = nil,
                      ignoringPreset: Bool = false) -> Bool {
        guard let format = pixelFormat(for: encoder) else { return false }
        var probe = settings ?? EncoderSettings(codec: codec, size: PixelSize(width: 320, height: 240),
                                                framesPerSecond: 30)
        if ignoringPreset { probe.preset = nil }
        // Quiet for the whole probe: encoders log their summaries when freed.
        return FFmpegLog.quietly {
            guard let owned = OwnedCodecContext(encoder) else { return false }
            let context = owned.pointer
            guard (try? configure(context, encoder: encoder, settings: probe, format: format,
                                  globalHeader: false)) != nil,
                  (try? open(context, encoder: encoder)) != nil
            else { return false }
            endStream(context, sendingBlankFrame: true)
            return true
        }
    }

    /// Sends end-of-stream and drops what comes out. SVT-AV1 1.4 hangs when freed without it, and
    /// when it gets end-of-stream before any frame, so an encoder that saw none gets a blank one.
    private static func endStream(_ context: UnsafeMutablePointer<AVCodecContext>, sendingBlankFrame: Bool) {
        // A GPU encoder's pictures are surfaces, which a blank frame in memory cannot be; it needs none.
        if sendingBlankFrame && context.pointee.hw_frames_ctx == nil {
            guard let ownedBlank = OwnedFrame() else { return }
            let blank = ownedBlank.pointer
            blank.pointee.format = context.pointee.pix_fmt.rawValue
            blank.pointee.width = context.pointee.width
            blank.pointee.height = context.pointee.height
            blank.pointee.color_range = context.pointee.color_range
            guard av_frame_get_buffer(blank, 0) >= 0 else { return }
            paintBlack(blank)
            blank.pointee.pts = 0
            guard avcodec_send_frame(context, blank) >= 0 else { return }
        }
        guard avcodec_send_frame(context, nil) >= 0 else { return }
        guard let packet = OwnedPacket() else { return }
        while avcodec_receive_packet(context, packet.pointer) >= 0 { av_packet_unref(packet.pointer) }
    }

    /// How pictures of `format` are made: JPEG's full range, or video's limited one.
    private static func colors(_ format: AVPixelFormat) -> ColorTags {
        ColorTags(range: format == AV_PIX_FMT_YUVJ420P ? .full : .limited)
    }

    private static func pixelFormat(for encoder: UnsafePointer<AVCodec>) -> AVPixelFormat? {
        guard var formats = encoder.pointee.pix_fmts else { return AV_PIX_FMT_YUV420P }
        var offered: [AVPixelFormat] = []
        while formats.pointee != AV_PIX_FMT_NONE {
            offered.append(formats.pointee)
            formats += 1
        }
        // JPEG wants full-range pictures; video codecs the usual limited range.
        let preferred = encoder.pointee.id == AV_CODEC_ID_MJPEG
            ? [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUV420P] : [AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P]
        return preferred.first(where: offered.contains)
    }

    private static func configure(
        _ context: UnsafeMutablePointer<AVCodecContext>, encoder: UnsafePointer<AVCodec>, settings: EncoderSettings,
        format: AVPixelFormat, globalHeader: Bool
    ) throws(PodiumError) {
        context.pointee.width = Int32(settings.size.width)
        context.pointee.height = Int32(settings.size.height)
        context.pointee.pix_fmt = format
        context.pointee.time_base = timeBase
        context.pointee.framerate = AVRational(num: Int32(settings.framesPerSecond), den: 1)
        context.pointee.gop_size = Int32(settings.gopSize)
        // Say how the pictures were made (see `ColorTags`), or players guess: untagged HD is taken for BT.709.
        let colors = Self.colors(format)
        context.pointee.color_range = colors.ffmpegRange
        context.pointee.colorspace = colors.ffmpegMatrix
        context.pointee.color_primaries = colors.ffmpegPrimaries
        context.pointee.color_trc = colors.ffmpegTransfer
        context.pointee.chroma_sample_location = colors.ffmpegChromaLocation
        if let bitrate = settings.bitrate {
            context.pointee.bit_rate = Int64(bitrate.bitsPerSecond)
            // A buffer of the settings' time keeps the rate steady enough for a network link.
            // SVT-AV1 takes a cap equal to the target as constant bit rate, which it refuses with a cap.
            context.pointee.rc_max_rate = String(cString: encoder.pointee.name) == "libsvtav1"
                ? 0 : Int64(bitrate.bitsPerSecond)
            context.pointee.rc_buffer_size = Self.rateBuffer(bitrate, settings)
        }
        // A GPU's encoder keeps a constant quantiser where software keeps a constant quality: the
        // same number, x264's default (23) where none was asked (VAAPI's own is 20).
        let quality = settings.quality ?? (format == AV_PIX_FMT_VAAPI && settings.bitrate == nil
            ? EncoderRate.defaultQuality : nil)
        if let quality {
            // Quality alone sets the rate (libvpx takes a bit rate beside crf as a cap).
            context.pointee.bit_rate = 0
            let result = format == AV_PIX_FMT_VAAPI
                ? av_opt_set(context.pointee.priv_data, "qp", "\(Int(quality.rounded()))", 0)
                : av_opt_set(context.pointee.priv_data, "crf", quality.plain, 0)
            if result == FFmpegError.optionNotFound.code {
                throw .usage("encoder \(encoder.name) has no constant quality (crf)", about: .quality(quality),
                             remedy: .bitrate)
            }
            if result < 0 { throw .usage("out of range for \(encoder.name)", about: .quality(quality)) }
        }
        if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        for (key, value) in liveOptions(for: encoder.name) {
            av_opt_set(context, key, value, AV_OPT_SEARCH_CHILDREN)
        }
        if settings.alignedKeyframes {
            // Keyframes come only when asked for, by the run's one schedule, so every rendition
            // starts its segments at the same frames: no scene cuts of its own, and the encoder's
            // own interval out of the way.
            // Also when the rate is raised as the run goes (to 240 fps at most).
            let frames = settings.keyframeInterval.seconds * Double(FrameRate.range.upperBound)
            context.pointee.gop_size = Int32(clamping: 2 * Int(frames.rounded()) + 1)
            av_opt_set(context.pointee.priv_data, "sc_threshold", "0", 0)
            // A forced keyframe must be one a segment can start with (NVENC's, say, is not by default).
            av_opt_set(context.pointee.priv_data, "forced-idr", "1", 0)
            if encoder.name == "libx265" {
                av_opt_set(context.pointee.priv_data, "x265-params", "log-level=error:scenecut=0", 0)
            }
        }
        if settings.webRTC {
            // Constrained baseline, which every WebRTC receiver decodes (x264's ultrafast makes
            // nothing more; a slower preset would turn on CABAC and 8x8 transforms).
            av_opt_set(context.pointee.priv_data, "profile", encoder.name == "libx264" ? "baseline"
                       : "constrained_baseline", 0)
        }
        if let preset = settings.preset {
            let result = av_opt_set(context.pointee.priv_data, "preset", preset, 0)
            if result == FFmpegError.optionNotFound.code {
                throw .usage("encoder \(encoder.name) has no presets", about: .preset(preset))
            }
            if result < 0 { throw .usage("not a preset of \(encoder.name)", about: .preset(preset)) }
        }
    }

    private static func open(_ context: UnsafeMutablePointer<AVCodecContext>,
                             encoder: UnsafePointer<AVCodec>) throws(PodiumError) {
        let result = avcodec_open2(context, encoder, nil)
        guard result >= 0 else {
            throw .unavailable("encoder \(encoder.name) cannot open here: \(FFmpegError(code: result))")
        }
    }

    /// The options Podium opens encoder `name` with, by the names `ffmpeg` takes them
    /// (`-preset ultrafast`): no frame reordering, no look-ahead, the fastest modes. `podium
    /// encoders --json` lists them, and `Scripts/compare-ffmpeg` gives ffmpeg these very ones.
    public static func liveOptions(for name: String) -> [(String, String)] {
        // No B-frames: each frame leaves the encoder as it goes in (and the browser viewer's MP4
        // fragments carry no composition offsets).
        var options = [("bf", "0")] + (lowLatencyOptions[name] ?? [])
        // x264 and x265 cut each frame into slices, one per thread (zerolatency), and by default
        // start 1.5 threads a core: on two cores the third slice waits for a core, so a frame
        // takes as long as with two, and the extra thread costs switches. One slice per core.
        if ["libx264", "libx265"].contains(name) {
            options.append(("threads", "\(max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))"))
        }
        return options
    }

    /// Per-encoder settings for live capture, by their private option names.
    private static let lowLatencyOptions: [String: [(String, String)]] = [
        // Forced keyframes (for a client that just joined) must be IDR frames, where decoding can start.
        "libx264": [("preset", "ultrafast"), ("tune", "zerolatency"), ("forced-idr", "1")],
        "libx265": [("preset", "ultrafast"), ("tune", "zerolatency"), ("forced-idr", "1"),
                    ("x265-params", "log-level=error")],
        "libvpx-vp9": [("deadline", "realtime"), ("cpu-used", "8"), ("lag-in-frames", "0"), ("row-mt", "1")],
        "libsvtav1": [("preset", "12")],
        "libaom-av1": [("usage", "realtime"), ("cpu-used", "8"), ("lag-in-frames", "0")],
        "librav1e": [("speed", "10")],
        // A driver that can wait on a coded buffer (iHD) gets pictures in flight, two by default:
        // each packet would come a frame late, and the first only with the second picture.
        "h264_vaapi": [("async_depth", "1")], "hevc_vaapi": [("async_depth", "1")],
        "vp9_vaapi": [("async_depth", "1")], "av1_vaapi": [("async_depth", "1")],
    ]
}
