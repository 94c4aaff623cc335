import CFFmpeg
import Foundation
public import Logging
public import PodiumCore
import Synchronization

/// Takes the pictures of a camera read through libavdevice (a V4L2 device).
///
/// A thread of its own reads the device as it sends (its reads block until a picture is there),
/// decodes each picture (a webcam's JPEG or YUYV) and writes it as BGRA into an inbox, whose
/// newest frame waits for the next slot of the run's grid. A device that stops sending or goes
/// (unplugged) is opened again each second until it is back; meanwhile the capture waits, as a
/// PipeWire camera's does, and the other source of a layout is shown alone.
///
/// Made on the capture thread and used there, but for the inbox the reading thread fills.
public final class DeviceCapture: FrameGrabber {
    private let link: DeviceLink
    private var reader = InboxReader()
    public let description: String
    private let logger: Logger
    /// Why the camera is away, once said, until it is back.
    private var away: String?

    /// Opens the device on a thread of its own, and waits until it opened or failed.
    /// - Throws: 69 when it cannot be opened with any of the plan's options, or within 10 s.
    public init(plan: DeviceCameraPlan, bufferCount: Int, clock: any PacingClock = MonotonicClock(),
                logger: Logger) throws(PodiumError) {
        // A camera's own rate meets the grid's at a wandering phase: one frame is held back.
        let link = DeviceLink(frames: FrameInbox(bufferCount: max(3, bufferCount + 2), clock: clock,
                                                 holdsOneBack: true))
        Thread.detachNamed("podium-camera") {
            DeviceInput.read(plan, link: link)
            link.finished.signal()
        }
        // A device that does not answer its opening holds nothing up for long.
        guard link.answered.wait(timeout: .now() + .seconds(10)) == .success else {
            link.stopping.store(true, ordering: .relaxed)
            throw .unavailable("\(plan.name): it did not open within 10 s")
        }
        if case .failure(let error) = link.state.withLock({ $0.opened }) {
            _ = link.finished.wait(timeout: .now() + .seconds(2))
            throw error
        }
        self.link = link
        description = plan.name
        self.logger = logger
    }

    deinit {
        link.stopping.store(true, ordering: .relaxed)
        // A read returns within a frame interval, or when the interrupt check sees the stop.
        _ = link.finished.wait(timeout: .now() + .seconds(2))
        link.frames.drain()
    }

    /// The size of the first frame, waiting for it at most `timeout` seconds; `nil` when none came.
    public func firstSize(within timeout: Double) -> PixelSize? {
        link.frames.firstSize(within: timeout)
    }

    public func capture(sequence: UInt64, time: UInt64, slotTime: UInt64, evenIfUnchanged: Bool)
        throws(PodiumError) -> CaptureOutcome {
        let waiting = link.state.withLock { $0.waiting }
        if waiting != away {
            let said = waiting.map { "\(description) paused: \($0); waiting for it" }
                ?? "capturing \(description) again"
            logger.notice("\(said)")
            away = waiting
        }
        let arrived = link.frames.take()
        if arrived == nil && away != nil { return .waiting }
        return reader.next(arrived, sequence: sequence, slotTime: slotTime, evenIfUnchanged: evenIfUnchanged)
    }
}

/// What the reading thread and the capture share.
private final class DeviceLink: Sendable {
    struct State {
        /// Whether the device opened the first time.
        var opened: Result<Void, PodiumError>?
        /// Why it is away now (it stopped sending, or went); `nil` while it sends.
        var waiting: String?
    }

    let frames: FrameInbox
    let state = Mutex(State())
    let stopping = Atomic(false)
    /// Signalled when the first opening succeeded or failed, and when the thread ends.
    let answered = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)

    init(frames: FrameInbox) {
        self.frames = frames
    }
}

/// One opening of the device, on the reading thread: the input, its decoder and the conversion
/// to BGRA, each freed when it goes.
private final class DeviceInput {
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private let decoder: OwnedCodecContext
    private let stream: Int32
    private var converter: OpaquePointer?
    private let link: DeviceLink

    /// Opens `plan`'s device with the first of its options it takes.
    /// - Throws: 69 with libavdevice's reason for the last options tried.
    init(_ plan: DeviceCameraPlan, link: DeviceLink) throws(PodiumError) {
        self.link = link
        if let reason = cffmpeg_load_devices() {
            throw .unavailable("\(plan.name): V4L2 cameras need libavdevice: \(String(cString: reason))")
        }
        let input = av_find_input_format(plan.inputFormat)
        var failure = FFmpegError(code: cffmpeg_averror(ENODEV))
        for attempt in plan.attempts {
            var options: OpaquePointer?
            for (key, value) in attempt { av_dict_set(&options, key, value, 0) }
            var context = avformat_alloc_context()
            // The stop is seen while a read waits (a device that sends nothing).
            context?.pointee.interrupt_callback = AVIOInterruptCB(callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<DeviceLink>.fromOpaque(opaque).takeUnretainedValue()
                    .stopping.load(ordering: .relaxed) ? 1 : 0
            }, opaque: Unmanaged.passUnretained(link).toOpaque())
            let opened = avformat_open_input(&context, plan.device, input, &options)
            av_dict_free(&options)
            if opened >= 0 {
                format = context
                break
            }
            failure = FFmpegError(code: opened)
        }
        guard let format else { throw .unavailable("\(plan.name): cannot open it: \(failure)") }
        let index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0, let parameters = format.pointee.streams[Int(index)]?.pointee.codecpar,
              let codec = avcodec_find_decoder(parameters.pointee.codec_id), let decoder = OwnedCodecContext(codec),
              avcodec_parameters_to_context(decoder.pointer, parameters) >= 0 else {
            var owned: UnsafeMutablePointer<AVFormatContext>? = format
            avformat_close_input(&owned)
            throw .unavailable("\(plan.name): it sends no picture FFmpeg can decode")
        }
        // One picture at a time: a camera's pictures are small work, and threads would add a frame of delay.
        decoder.pointer.pointee.thread_count = 1
        guard avcodec_open2(decoder.pointer, codec, nil) >= 0 else {
            var owned: UnsafeMutablePointer<AVFormatContext>? = format
            avformat_close_input(&owned)
            throw .unavailable("\(plan.name): cannot decode its pictures")
        }
        self.decoder = decoder
        stream = index
    }

    deinit {
        sws_freeContext(converter)
        avformat_close_input(&format)
    }

    /// The whole life of the reading thread: open, read until the device stops sending, open again
    /// each second, until the capture stops.
    static func read(_ plan: DeviceCameraPlan, link: DeviceLink) {
        var first = true
        while !link.stopping.load(ordering: .relaxed) {
            do throws(PodiumError) {
                let input = try DeviceInput(plan, link: link)
                if first { link.state.withLock { $0.opened = .success(()) } }
                link.state.withLock { $0.waiting = nil }
                if first { link.answered.signal() }
                first = false
                let reason = input.pump()
                link.state.withLock { $0.waiting = reason }
            } catch {
                guard !first else {
                    link.state.withLock { $0.opened = .failure(error) }
                    link.answered.signal()
                    return
                }
            }
            // Away (unplugged, or stopped): looked for again each second.
            for _ in 0..<10 where !link.stopping.load(ordering: .relaxed) { usleep(100_000) }
        }
    }

    /// Reads, decodes and hands on pictures until the device stops sending or the capture stops.
    /// - Returns: why it stopped, in a few words.
    private func pump() -> String {
        guard let format, let packet = OwnedPacket(), let frame = OwnedFrame() else { return "out of memory" }
        while !link.stopping.load(ordering: .relaxed) {
            let read = av_read_frame(format, packet.pointer)
            if read == cffmpeg_averror_eagain() { continue }
            guard read >= 0 else { return "it stopped sending (\(FFmpegError(code: read)))" }
            if packet.pointer.pointee.stream_index == stream,
               avcodec_send_packet(decoder.pointer, packet.pointer) >= 0 {
                while avcodec_receive_frame(decoder.pointer, frame.pointer) >= 0 {
                    hand(frame.pointer)
                    av_frame_unref(frame.pointer)
                }
            }
            av_packet_unref(packet.pointer)
        }
        return "stopped"
    }

    /// `format`'s plain twin, and whether it was a full-range (JPEG) format.
    private static func plain(_ format: AVPixelFormat) -> (AVPixelFormat, fullRange: Bool) {
        switch format {
        case AV_PIX_FMT_YUVJ420P: (AV_PIX_FMT_YUV420P, true)
        case AV_PIX_FMT_YUVJ422P: (AV_PIX_FMT_YUV422P, true)
        case AV_PIX_FMT_YUVJ444P: (AV_PIX_FMT_YUV444P, true)
        case AV_PIX_FMT_YUVJ440P: (AV_PIX_FMT_YUV440P, true)
        default: (format, false)
        }
    }

    /// Writes a decoded picture as BGRA into a free buffer of the inbox, the newest frame.
    private func hand(_ picture: UnsafeMutablePointer<AVFrame>) {
        let size = PixelSize(width: Int(picture.pointee.width), height: Int(picture.pointee.height))
        guard size.width > 0, size.height > 0, let buffer = link.frames.freeBuffer(for: size) else { return }
        // A JPEG's pictures come as yuvj formats, which libswscale takes as their plain twins at
        // full range.
        let (pixels, fullRange) = Self.plain(AVPixelFormat(rawValue: picture.pointee.format))
        let (width, height) = (picture.pointee.width, picture.pointee.height)
        let made = sws_getCachedContext(converter, width, height, pixels, width, height, AV_PIX_FMT_BGRA, SWS_POINT,
                                        nil, nil, nil)
        if made != converter, let made {
            let coefficients = sws_getCoefficients(SWS_CS_ITU601)
            sws_setColorspaceDetails(made, coefficients, fullRange ? 1 : 0, coefficients, 1, 0, 1 << 16, 1 << 16)
        }
        converter = made
        guard let converter else { return link.frames.giveBack(buffer) }
        var target: (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?) =
            (buffer.bytes.assumingMemoryBound(to: UInt8.self), nil)
        var targetStride: (Int32, Int32) = (Int32(size.width * 4), 0)
        // The picture's own plane and stride arrays, read in place.
        let rows = withUnsafeBytes(of: &picture.pointee.data) { planes in
            withUnsafeBytes(of: &picture.pointee.linesize) { strides in
                withUnsafeMutableBytes(of: &target) { target in
                    withUnsafeMutableBytes(of: &targetStride) { targetStride in
                        sws_scale(converter, planes.assumingMemoryBound(to: UnsafePointer<UInt8>?.self).baseAddress,
                                  strides.assumingMemoryBound(to: Int32.self).baseAddress, 0, picture.pointee.height,
                                  target.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self).baseAddress,
                                  targetStride.assumingMemoryBound(to: Int32.self).baseAddress)
                    }
                }
            }
        }
        guard rows == picture.pointee.height else { return link.frames.giveBack(buffer) }
        link.frames.deliver(buffer, size: size, rows: nil)
    }
}
