import CFFmpeg
import Foundation
import Logging
import PodiumCore
@testable import PodiumMedia
import PodiumTestSupport
import Synchronization
import Testing

/// An output writes its program, whatever kinds of stream it holds: a picture and a sound
/// published on one hub become one file that FFmpeg reads as both, each as long as it was.
@Suite struct ProgramMuxTests {
    static let size = PixelSize(width: 64, height: 48)

    @Test(arguments: ["program.mkv", "program.mp4", "program.ts"])
    func aPictureAndASoundInOneFile(name: String) async throws {
        let hub = StreamHub()
        let (video, audio) = (hub.addStream(), hub.addStream())
        let path = try Tools.temporaryFolder().appendingPathComponent(name).path
        let url = try #require(try MuxerTarget(parsing: path))
        let settings = EncoderSettings(size: Self.size, framesPerSecond: 30)
        let picture = try VideoEncoder(settings: settings, plannedPicture: Self.size,
                                       globalHeader: url.needs.globalHeader, streamID: video)
        let sound = try SilenceEncoder(stream: audio, globalHeader: url.needs.globalHeader)
        hub.describe(picture.stream)
        hub.describe(sound.stream)
        let output = MuxerOutput(target: url, program: Program(streams: [video, audio]), flushInterval: .seconds(1),
                                 counters: SinkCounters(url: path), capacity: 1_000,
                                 logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        // The output on a thread of its own, as a run gives it: it blocks on its queue.
        let opened = ReadyLatch(count: 1)
        let failure = Mutex<PodiumError?>(nil)
        let writing = ThreadGroup()
        writing.spawn("test-output") {
            do throws(PodiumError) {
                try output.run(hub: hub, clock: MonotonicClock()) { opened.report($0) }
            } catch {
                failure.withLock { $0 = error }
            }
        }
        #expect(await opened.wait() == nil)

        // Two seconds of each, interleaved as encoders on two threads would publish them.
        let converter = try PictureConverter(source: Self.size, sizes: [Self.size], count: 4, filter: .box)
        let storage = HeapStorage(capacity: Self.size.area * 4)
        memset(storage.bytes, 0x80, Self.size.area * 4)
        let interval = FrameRate(30).intervalNanoseconds
        var soundTime: UInt64 = 0
        for index in 0..<60 as Range<UInt64> {
            let slotTime = FrameGrid(fps: FrameRate(30)).offset(ofSlot: index)
            let frame = CapturedFrame(buffer: FrameBuffer(bytes: storage.bytes, capacity: Self.size.area * 4, index: 0,
                                                          storage: storage),
                                      size: Self.size, bytesPerRow: Self.size.width * 4, captureTime: 0,
                                      slotTime: slotTime, sequence: index)
            let converted = try #require(try converter.convert(frame))
            converted.share(with: 1)
            _ = try picture.take(converted)
            converted.release()
            try picture.encode(slotTime: slotTime, keyframe: index == 0) { packet in
                var packet = packet
                packet.duration = picture.stream.ticks(nanoseconds: interval)
                hub.publish(packet)
            }
            while soundTime <= slotTime {
                try sound.encode { hub.publish($0) }
                soundTime += 1_024 * 1_000_000_000 / 48_000
            }
        }
        try picture.flush { hub.publish($0) }
        try sound.flush { hub.publish($0) }
        output.close()
        await writing.wait()
        #expect(failure.withLock { $0 } == nil)

        let probed = try Tools.run("ffprobe", ["-v", "error", "-show_entries",
                                               "stream=codec_type,codec_name,sample_rate,channels,duration",
                                               "-of", "json", path])
        #expect(probed.status == 0, "\(probed.stderr)")
        let streams = try #require(try JSONSerialization.jsonObject(with: Data(probed.stdout.utf8)) as? [String: Any])
        let described = try #require(streams["streams"] as? [[String: Any]])
        #expect(described.compactMap { $0["codec_type"] as? String }.sorted() == ["audio", "video"])
        #expect(described.contains { $0["codec_name"] as? String == "aac" && $0["sample_rate"] as? String == "48000" })
        for kind in ["v:0", "a:0"] {
            let times = try Tools.run("ffprobe", ["-v", "error", "-select_streams", kind, "-show_entries",
                                                  "packet=pts_time", "-of", "csv=p=0", path])
            let last = times.stdout.split(separator: "\n").compactMap {
                Double($0.trimmingCharacters(in: .init(charactersIn: ",")))
            }.max()
            #expect(abs((last ?? 0) - 1.97) < 0.05, "\(kind) runs to the end: \(last ?? 0) s")
        }
    }
}

/// FFmpeg's own AAC encoder, fed silence: 48 kHz stereo, 1024 samples a packet, times in samples.
private final class SilenceEncoder {
    let stream: StreamDescription
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var samples: Int64 = 0

    init(stream id: Int, globalHeader: Bool) throws {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_AAC), let context = avcodec_alloc_context3(codec) else {
            throw TestFailure("no AAC encoder")
        }
        self.context = context
        context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        context.pointee.sample_rate = 48_000
        context.pointee.bit_rate = 128_000
        context.pointee.time_base = AVRational(num: 1, den: 48_000)
        av_channel_layout_default(&context.pointee.ch_layout, 2)
        if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        guard avcodec_open2(context, codec, nil) >= 0 else { throw TestFailure("AAC does not open") }
        frame = av_frame_alloc()
        packet = av_packet_alloc()
        guard let frame else { throw TestFailure("out of memory") }
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.nb_samples = context.pointee.frame_size
        frame.pointee.sample_rate = 48_000
        av_channel_layout_copy(&frame.pointee.ch_layout, &context.pointee.ch_layout)
        guard av_frame_get_buffer(frame, 0) >= 0 else { throw TestFailure("out of memory") }
        av_samples_set_silence(frame.pointee.extended_data, 0, frame.pointee.nb_samples, 2, AV_SAMPLE_FMT_FLTP)
        let extradata = context.pointee.extradata.map {
            Array(UnsafeBufferPointer(start: $0, count: Int(context.pointee.extradata_size)))
        } ?? []
        let audio = StreamDescription.Audio(codec: .aac, sampleRate: 48_000, channels: 2,
                                            samplesPerPacket: Int(context.pointee.frame_size))
        stream = StreamDescription(id: id, media: .audio(audio), timeScale: 48_000, extradata: extradata)
    }

    deinit {
        av_packet_free(&packet)
        av_frame_free(&frame)
        avcodec_free_context(&context)
    }

    func encode(_ emit: (EncodedPacket) -> Void) throws {
        guard let frame else { return }
        frame.pointee.pts = samples
        samples += Int64(frame.pointee.nb_samples)
        guard avcodec_send_frame(context, frame) >= 0 else { throw TestFailure("AAC refused a frame") }
        drain(emit)
    }

    func flush(_ emit: (EncodedPacket) -> Void) throws {
        avcodec_send_frame(context, nil)
        drain(emit)
    }

    private func drain(_ emit: (EncodedPacket) -> Void) {
        while let packet, avcodec_receive_packet(context, packet) >= 0 {
            guard let payload = AVPacketPayload(movingFrom: packet) else { return }
            emit(EncodedPacket(streamID: stream.id, presentationTime: payload.packet.pointee.pts,
                               duration: payload.packet.pointee.duration, isKeyframe: true, payload: payload))
        }
    }
}
