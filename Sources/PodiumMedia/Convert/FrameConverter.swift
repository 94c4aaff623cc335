import CFFmpeg
import PodiumCore

/// Converts captured BGRA frames (or a rectangle of them) to another pixel format and size with
/// libswscale: the encoder's YUV, or BGRA again for a window.
///
/// Not thread-safe: confine to the branch thread that owns the `SwsContext`.
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

    /// The picture size this converter reads.
    var source: PixelSize { sourceSize }

    /// Writes `frame`'s picture into `target`'s planes (4:2:0), at `destination` (even
    /// coordinates) or over the whole picture.
    func convert(_ frame: CapturedFrame, into target: UnsafeMutablePointer<AVFrame>, at destination: PixelRect? = nil) {
        withUnsafeMutablePointer(to: &target.pointee.data) { data in
            withUnsafeMutablePointer(to: &target.pointee.linesize) { linesize in
                data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { planes in
                    linesize.withMemoryRebound(to: Int32.self, capacity: 8) { strides in
                        let whole = PixelRect(x: 0, y: 0, size: frame.size)
                        guard let destination else { return convert(frame, from: whole, planes: planes, strides: strides) }
                        // Chroma planes have half the rows and columns.
                        withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<UInt8>?.self, capacity: 4) { moved in
                            for plane in 0..<4 {
                                let shift = plane == 0 ? 0 : 1
                                moved[plane] = planes[plane].map { $0 + (destination.y >> shift) * Int(strides[plane]) + (destination.x >> shift) }
                            }
                            convert(frame, from: whole, planes: UnsafePointer(moved.baseAddress!), strides: strides)
                        }
                    }
                }
            }
        }
    }

    /// Writes the `crop` rectangle of `frame` (of the size this converter was made for) into `planes`.
    ///
    /// The corresponding C function is `sws_scale`.
    func convert(_ frame: CapturedFrame, from crop: PixelRect, planes: UnsafePointer<UnsafeMutablePointer<UInt8>?>, strides: UnsafePointer<Int32>) {
        let origin = frame.buffer.bytes + crop.y * frame.bytesPerRow + crop.x * 4
        sourcePlanes[0] = UnsafePointer(origin.assumingMemoryBound(to: UInt8.self))
        sourceStrides[0] = Int32(frame.bytesPerRow)
        _ = sws_scale(context, sourcePlanes, sourceStrides, 0, Int32(sourceSize.height), planes, strides)
    }
}

extension ScaleFilter {
    var swsFlags: Int32 {
        switch self {
        case .box: SWS_AREA
        case .fast: SWS_FAST_BILINEAR
        case .bilinear: SWS_BILINEAR
        case .bicubic: SWS_BICUBIC
        case .lanczos: SWS_LANCZOS
        }
    }
}
