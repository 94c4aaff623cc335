import CFFmpeg
import PodiumCore

/// Converts captured BGRA frames to the encoder's pixel format and size with libswscale.
///
/// Not thread-safe: confine to the encode thread, which owns the `SwsContext`.
final class FrameConverter {
    private let context: OpaquePointer
    private let sourceSize: PixelSize
    // Kept across frames so the hot path allocates nothing.
    private let sourcePlanes = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: 4)
    private let sourceStrides = UnsafeMutablePointer<Int32>.allocate(capacity: 4)

    /// The corresponding C function is `sws_getContext`.
    init(source: PixelSize, output: PixelSize, format: AVPixelFormat, filter: ScaleFilter) throws(PodiumError) {
        guard let context = sws_getContext(
            Int32(source.width), Int32(source.height), AV_PIX_FMT_BGRA,
            Int32(output.width), Int32(output.height), format,
            filter.swsFlags, nil, nil, nil
        ) else {
            throw .software("libswscale cannot convert \(source) BGRA to \(output) \(String(cString: av_get_pix_fmt_name(format)))")
        }
        self.context = context
        self.sourceSize = source
        sourcePlanes.initialize(repeating: nil, count: 4)
        sourceStrides.initialize(repeating: 0, count: 4)
    }

    deinit {
        sws_freeContext(context)
        sourcePlanes.deallocate()
        sourceStrides.deallocate()
    }

    /// Writes `frame`'s picture into `target`'s planes.
    ///
    /// The corresponding C function is `sws_scale`.
    func convert(_ frame: CapturedFrame, into target: UnsafeMutablePointer<AVFrame>) {
        sourcePlanes[0] = UnsafePointer(frame.buffer.bytes.assumingMemoryBound(to: UInt8.self))
        sourceStrides[0] = Int32(frame.bytesPerRow)
        withUnsafeMutablePointer(to: &target.pointee.data) { data in
            withUnsafeMutablePointer(to: &target.pointee.linesize) { linesize in
                data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { planes in
                    linesize.withMemoryRebound(to: Int32.self, capacity: 8) { strides in
                        _ = sws_scale(context, sourcePlanes, sourceStrides, 0, Int32(sourceSize.height), planes, strides)
                    }
                }
            }
        }
    }
}

extension ScaleFilter {
    var swsFlags: Int32 {
        switch self {
        case .fast: SWS_FAST_BILINEAR
        case .bilinear: SWS_BILINEAR
        case .bicubic: SWS_BICUBIC
        case .lanczos: SWS_LANCZOS
        }
    }
}
