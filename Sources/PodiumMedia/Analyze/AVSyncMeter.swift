import CFFmpeg
public import PodiumCore

/// How far apart picture and sound are in anything that recorded `podium scene --kind clapper`:
/// each white flash of the picture is paired with the beep that began with it, and the offset is
/// when the beep starts in the sound less when the flash starts in the picture (positive: the
/// sound is late). Read with libavformat and libavcodec, from a file, an HLS playlist or a stream.
public struct AVSyncReport: Sendable, Codable, Equatable {
    /// When each flash began, in seconds of the recording.
    public var flashes: [Double]
    /// When each beep began, in seconds of the recording.
    public var beeps: [Double]
    /// For each flash with a beep within half a second of it, the beep's start less the flash's, in ms.
    public var offsets: [Double]

    /// The median offset, in ms; `nil` without one.
    public var median: Double? {
        guard !offsets.isEmpty else { return nil }
        let sorted = offsets.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The offset furthest from zero, in ms; `nil` without one.
    public var worst: Double? { offsets.max { abs($0) < abs($1) } }

    /// The change of the offset from the first quarter of the pairs to the last, in ms: how far
    /// sound and picture drifted apart over the recording.
    public var drift: Double? {
        let quarter = offsets.count / 4
        guard quarter > 0 else { return nil }
        let first = offsets.prefix(quarter).sorted()[quarter / 2]
        let last = offsets.suffix(quarter).sorted()[quarter / 2]
        return last - first
    }
}

public enum AVSyncMeter {
    /// A picture whose mean brightness passes this (of 255) is a flash.
    static let flashLuma = 128.0
    /// A sample louder than this starts a beep, after at least `quiet` of silence.
    static let beepLevel: Float = 0.1
    static let quiet = 0.2

    /// Reads the first picture and sound streams of `input` to their end (or until it sends
    /// nothing for 5 s), or for `limit` seconds of the recording (a live stream).
    ///
    /// The corresponding C functions are `avformat_open_input`, `av_read_frame` and `avcodec_receive_frame`.
    /// - Throws: 64 when `input` cannot be opened or has no picture or no sound.
    public static func measure(_ input: String, limit: Double? = nil) throws(PodiumError) -> AVSyncReport {
        // FFmpeg's own account of what it opens (each segment of a playlist) is not for the reader.
        let level = av_log_get_level()
        av_log_set_level(AV_LOG_ERROR)
        defer { av_log_set_level(level) }
        var format: UnsafeMutablePointer<AVFormatContext>?
        // A stream that stops sending (its publisher left, the server keeps the connection) ends
        // the reading after 5 s rather than holding it for ever.
        var options: OpaquePointer?
        av_dict_set(&options, "rw_timeout", "5000000", 0)
        defer { av_dict_free(&options) }
        let opened = avformat_open_input(&format, input, nil, &options)
        guard opened >= 0, let format else {
            throw .usage("av-sync '\(input)': cannot read it: \(FFmpegError(code: opened))")
        }
        defer {
            var owned: UnsafeMutablePointer<AVFormatContext>? = format
            avformat_close_input(&owned)
        }
        guard avformat_find_stream_info(format, nil) >= 0 else {
            throw .usage("av-sync '\(input)': cannot find its streams")
        }
        let videoIndex = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        let audioIndex = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard videoIndex >= 0 else { throw .usage("av-sync '\(input)': it has no picture") }
        guard audioIndex >= 0 else { throw .usage("av-sync '\(input)': it has no sound") }
        let picture = try Decoder(format: format, index: videoIndex, input: input)
        let sound = try Decoder(format: format, index: audioIndex, input: input)
        var flashes = FlashFinder()
        var beeps = BeepFinder()

        guard let packet = OwnedPacket(), let frame = OwnedFrame() else { throw .software("out of memory") }
        var reachedLimit = false
        var first: Double?
        /// Hands on every frame `decoder` has ready.
        func drain(_ decoder: Decoder) {
            while decoder.receive(frame.pointer) {
                let time = decoder.seconds(of: frame.pointer)
                first = first ?? time
                if decoder === picture {
                    flashes.look(at: frame.pointer, time: time)
                } else {
                    beeps.listen(to: frame.pointer, time: time)
                }
                av_frame_unref(frame.pointer)
                if let limit, let first, time - first > limit { reachedLimit = true }
            }
        }
        while !reachedLimit && av_read_frame(format, packet.pointer) >= 0 {
            let index = packet.pointer.pointee.stream_index
            let decoder = index == videoIndex ? picture : index == audioIndex ? sound : nil
            decoder?.send(packet.pointer)
            av_packet_unref(packet.pointer)
            if let decoder { drain(decoder) }
        }
        for decoder in [picture, sound] {
            decoder.send(nil)
            drain(decoder)
        }
        var offsets: [Double] = []
        for flash in flashes.onsets {
            guard let beep = beeps.onsets.min(by: { abs($0 - flash) < abs($1 - flash) }),
                  abs(beep - flash) < 0.5 else { continue }
            offsets.append((beep - flash) * 1_000)
        }
        return AVSyncReport(flashes: flashes.onsets, beeps: beeps.onsets, offsets: offsets)
    }

    /// One stream's decoder.
    private final class Decoder {
        private let context: OwnedCodecContext
        private let timeBase: AVRational

        init(format: UnsafeMutablePointer<AVFormatContext>, index: Int32, input: String) throws(PodiumError) {
            guard let stream = format.pointee.streams[Int(index)], let parameters = stream.pointee.codecpar,
                  let codec = avcodec_find_decoder(parameters.pointee.codec_id), let context = OwnedCodecContext(codec)
            else {
                throw .usage("av-sync '\(input)': no decoder for its stream \(index)")
            }
            guard avcodec_parameters_to_context(context.pointer, parameters) >= 0,
                  avcodec_open2(context.pointer, codec, nil) >= 0 else {
                throw .usage("av-sync '\(input)': cannot decode its stream \(index)")
            }
            self.context = context
            timeBase = stream.pointee.time_base
        }

        func send(_ packet: UnsafeMutablePointer<AVPacket>?) { _ = avcodec_send_packet(context.pointer, packet) }

        func receive(_ frame: UnsafeMutablePointer<AVFrame>) -> Bool {
            avcodec_receive_frame(context.pointer, frame) >= 0
        }

        func seconds(of frame: UnsafeMutablePointer<AVFrame>) -> Double {
            Double(frame.pointee.best_effort_timestamp) * av_q2d(timeBase)
        }
    }
}

/// Finds the pictures where a flash begins: the mean brightness of the luma plane (every planar
/// YUV format Podium writes keeps it first) rising past the middle. A recording that starts
/// during a flash did not see it begin: a flash counts after a dark picture.
private struct FlashFinder {
    var onsets: [Double] = []
    private var bright = true

    mutating func look(at frame: UnsafeMutablePointer<AVFrame>, time: Double) {
        guard let luma = frame.pointee.data.0 else { return }
        let stride = Int(frame.pointee.linesize.0)
        let (width, height) = (Int(frame.pointee.width), Int(frame.pointee.height))
        var sum = 0
        var count = 0
        // Every fourth pixel of every fourth row: the flash covers the whole picture.
        for row in Swift.stride(from: 0, to: height, by: 4) {
            for column in Swift.stride(from: 0, to: width, by: 4) {
                sum += Int(luma[row * stride + column])
                count += 1
            }
        }
        let isBright = count > 0 && Double(sum) / Double(count) > AVSyncMeter.flashLuma
        if isBright && !bright { onsets.append(time) }
        bright = isBright
    }
}

/// Finds the samples where a beep begins: the first loud sample after a stretch of quiet, in the
/// first channel. A recording that starts during a beep did not hear it begin: the quiet before
/// a beep is counted from the first sample.
private struct BeepFinder {
    var onsets: [Double] = []
    private var lastLoud: Double?

    mutating func listen(to frame: UnsafeMutablePointer<AVFrame>, time: Double) {
        let rate = Double(max(1, frame.pointee.sample_rate))
        let count = Int(frame.pointee.nb_samples)
        guard let data = frame.pointee.extended_data?[0] else { return }
        let format = AVSampleFormat(rawValue: frame.pointee.format)
        let channels = Int(frame.pointee.ch_layout.nb_channels)
        // Interleaved formats step over the other channels.
        let step = av_sample_fmt_is_planar(format) != 0 ? 1 : max(1, channels)
        for index in 0..<count {
            let at = index * step
            let level: Float = switch av_get_packed_sample_fmt(format) {
            case AV_SAMPLE_FMT_FLT:
                data.withMemoryRebound(to: Float.self, capacity: count * step) { abs($0[at]) }
            case AV_SAMPLE_FMT_S16:
                data.withMemoryRebound(to: Int16.self, capacity: count * step) { Float(abs(Int32($0[at]))) / 32_768 }
            case AV_SAMPLE_FMT_S32:
                data.withMemoryRebound(to: Int32.self, capacity: count * step) {
                    Float(abs(Int64($0[at]))) / 2_147_483_648
                }
            default: 0
            }
            let now = time + Double(index) / rate
            let since = lastLoud ?? now
            if lastLoud == nil { lastLoud = now }
            guard level > AVSyncMeter.beepLevel else { continue }
            if now - since > AVSyncMeter.quiet { onsets.append(now) }
            lastLoud = now
        }
    }
}
