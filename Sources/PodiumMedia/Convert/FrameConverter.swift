import CFFmpeg
import CYUV
import PodiumCore

/// Converts captured BGRA frames (or a rectangle of them) to another size and pixel format: the
/// encoder's YUV 4:2:0, or BGRA again for a window.
///
/// libyuv does the work when it can (the box and bilinear filters, or no scaling): it converts
/// straight out of the capture buffer several times faster than libswscale. libswscale serves the
/// filters libyuv lacks. Both use BT.601 colours, limited range for yuv420p and full for yuvj420p.
/// Not thread-safe: confine to the stage thread that owns it.
final class FrameConverter {
    /// The picture size this converter reads.
    let source: PixelSize
    let output: PixelSize
    private let format: AVPixelFormat
    private let engine: Engine
    private let planeArray = OwnedArray<UnsafePointer<UInt8>?>(repeating: nil, count: 4)
    private let strideArray = OwnedArray<Int32>(repeating: 0, count: 4)
    private var sourcePlanes: UnsafeMutablePointer<UnsafePointer<UInt8>?> { planeArray.pointer }
    private var sourceStrides: UnsafeMutablePointer<Int32> { strideArray.pointer }

    private enum Engine {
        /// libyuv; a BGRA picture of the output size holds the scaled picture before a YUV conversion.
        case libyuv(FilterMode, scaled: HeapStorage?)
        case swscale(OwnedScaleContext)
    }

    /// The corresponding C function is `sws_getContext`, for the filters libyuv lacks.
    /// - Parameters:
    ///   - format: `AV_PIX_FMT_BGRA`, `AV_PIX_FMT_YUV420P` or `AV_PIX_FMT_YUVJ420P`.
    ///   - libswscaleOnly: the reference path, to check the fast one against.
    init(source: PixelSize, output: PixelSize, format: AVPixelFormat, filter: ScaleFilter,
         libswscaleOnly: Bool = false) throws(PodiumError) {
        self.source = source
        self.output = output
        self.format = format
        let scaling = source != output
        let shrinking = output.width < source.width || output.height < source.height
        if !libswscaleOnly && (!scaling || filter == .box || filter == .bilinear) {
            let mode = !scaling ? kFilterNone : (filter == .box && shrinking ? kFilterBox : kFilterBilinear)
            engine = .libyuv(mode, scaled: scaling && format != AV_PIX_FMT_BGRA
                                       ? HeapStorage(capacity: output.area * 4) : nil)
        } else {
            guard let context = OwnedScaleContext(sws_getContext(
                Int32(source.width), Int32(source.height), AV_PIX_FMT_BGRA,
                Int32(output.width), Int32(output.height), format,
                filter.swsFlags, nil, nil, nil
            )) else {
                throw .software("libswscale cannot convert \(source) BGRA to \(output) "
                                + "\(String(cString: av_get_pix_fmt_name(format)))")
            }
            engine = .swscale(context)
        }
    }

    /// Writes `frame`'s picture into `target`'s planes (4:2:0), the whole picture.
    func convert(_ frame: CapturedFrame, into target: UnsafeMutablePointer<AVFrame>) {
        withUnsafeMutablePointer(to: &target.pointee.data) { data in
            withUnsafeMutablePointer(to: &target.pointee.linesize) { linesize in
                data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { planes in
                    linesize.withMemoryRebound(to: Int32.self, capacity: 8) { strides in
                        convert(frame, from: PixelRect(x: 0, y: 0, size: frame.size), planes: planes, strides: strides)
                    }
                }
            }
        }
    }

    /// Whether `convert(_:rows:into:)` can redo parts of a picture: libyuv converting without scaling.
    var convertsRows: Bool {
        if case .libyuv(kFilterNone, _) = engine, format != AV_PIX_FMT_BGRA { return true }
        return false
    }

    /// Converts only `rows` of `frame` into `target`, whose other rows already hold the picture
    /// (needs `convertsRows`). Bands widen to even rows, as 4:2:0 chroma pairs them.
    ///
    /// The corresponding C functions are libyuv's `ARGBToI420` and `ARGBToJ420`.
    func convert(_ frame: CapturedFrame, rows: RowBands, into target: UnsafeMutablePointer<AVFrame>) {
        let toYUV = format == AV_PIX_FMT_YUVJ420P ? ARGBToJ420 : ARGBToI420
        let planes = withUnsafeBytes(of: target.pointee.data) {
            ($0.load(as: UnsafeMutablePointer<UInt8>.self),
             $0.load(fromByteOffset: 8, as: UnsafeMutablePointer<UInt8>.self),
             $0.load(fromByteOffset: 16, as: UnsafeMutablePointer<UInt8>.self))
        }
        let strides = withUnsafeBytes(of: target.pointee.linesize) {
            ($0.load(as: Int32.self), $0.load(fromByteOffset: 4, as: Int32.self),
             $0.load(fromByteOffset: 8, as: Int32.self))
        }
        for index in 0..<rows.count {
            let top = rows[index].lowerBound & ~1
            let bottom = min(output.height, (rows[index].upperBound + 1) & ~1)
            guard top < bottom else { continue }
            let source = UnsafePointer((frame.buffer.bytes + top * frame.bytesPerRow)
                .assumingMemoryBound(to: UInt8.self))
            _ = toYUV(source, Int32(frame.bytesPerRow),
                      planes.0 + top * Int(strides.0), strides.0, planes.1 + top / 2 * Int(strides.1), strides.1,
                      planes.2 + top / 2 * Int(strides.2), strides.2, Int32(output.width), Int32(bottom - top))
        }
    }

    /// Whether `convert(_:from:rows:into:stride:)` can redo rows of a BGRA picture: libyuv copying or scaling.
    var redrawsRows: Bool {
        if case .libyuv = engine, format == AV_PIX_FMT_BGRA { return true }
        return false
    }

    /// Redraws only `rows` of the BGRA output picture in `pixels` from the `crop` rectangle of
    /// `frame`; its other rows already hold the picture (needs `redrawsRows`). Each row comes
    /// out exactly as a whole conversion makes it.
    ///
    /// The corresponding C functions are libyuv's `ARGBCopy` and `ARGBScaleClip`.
    func convert(_ frame: CapturedFrame, from crop: PixelRect, rows: RowBands, into pixels: UnsafeMutablePointer<UInt8>,
                 stride: Int32) {
        guard case .libyuv(let mode, _) = engine else { return }
        let origin = UnsafePointer((frame.buffer.bytes + crop.y * frame.bytesPerRow + crop.x * 4)
            .assumingMemoryBound(to: UInt8.self))
        let sourceStride = Int32(frame.bytesPerRow)
        for index in 0..<rows.count {
            let band = rows[index].clamped(to: 0..<output.height)
            guard !band.isEmpty else { continue }
            if mode == kFilterNone {
                _ = ARGBCopy(origin + band.lowerBound * frame.bytesPerRow, sourceStride,
                             pixels + band.lowerBound * Int(stride), stride, Int32(output.width), Int32(band.count))
            } else {
                _ = ARGBScaleClip(origin, sourceStride, Int32(source.width), Int32(source.height), pixels, stride,
                                  Int32(output.width), Int32(output.height), 0, Int32(band.lowerBound),
                                  Int32(output.width), Int32(band.count), mode)
            }
        }
    }

    /// Writes the `crop` rectangle of `frame` (of the size this converter reads) into `planes`.
    ///
    /// The corresponding C functions are libyuv's `ARGBScale`, `ARGBToI420`, `ARGBToJ420` and
    /// `ARGBCopy`, or `sws_scale`.
    func convert(_ frame: CapturedFrame, from crop: PixelRect, planes: UnsafePointer<UnsafeMutablePointer<UInt8>?>,
                 strides: UnsafePointer<Int32>) {
        let origin = UnsafePointer((frame.buffer.bytes + crop.y * frame.bytesPerRow + crop.x * 4)
            .assumingMemoryBound(to: UInt8.self))
        switch engine {
        case .swscale(let context):
            sourcePlanes[0] = origin
            sourceStrides[0] = Int32(frame.bytesPerRow)
            _ = sws_scale(context.pointer, sourcePlanes, sourceStrides, 0, Int32(source.height), planes, strides)
        case .libyuv(let mode, let scaled):
            var picture = origin
            var stride = Int32(frame.bytesPerRow)
            let (width, height) = (Int32(output.width), Int32(output.height))
            if format == AV_PIX_FMT_BGRA {
                if mode == kFilterNone {
                    _ = ARGBCopy(picture, stride, planes[0], strides[0], width, height)
                } else {
                    _ = ARGBScale(picture, stride, Int32(source.width), Int32(source.height), planes[0], strides[0],
                                  width, height, mode)
                }
                return
            }
            if let scaled {
                let bytes = scaled.bytes.assumingMemoryBound(to: UInt8.self)
                _ = ARGBScale(picture, stride, Int32(source.width), Int32(source.height), bytes, width * 4,
                              width, height, mode)
                (picture, stride) = (UnsafePointer(bytes), width * 4)
            }
            let toYUV = format == AV_PIX_FMT_YUVJ420P ? ARGBToJ420 : ARGBToI420
            _ = toYUV(picture, stride, planes[0], strides[0], planes[1], strides[1], planes[2], strides[2],
                      width, height)
        }
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
