import CFFmpeg
import CYUV
import PodiumCore

/// Scales 4:2:0 pictures to another size: libyuv for the box and bilinear filters, libswscale
/// for the others. Each encoder smaller than the captured size scales from the shared picture.
///
/// Not thread-safe: confine to the encoder's thread.
final class YUVScaler {
    let source: PixelSize
    let output: PixelSize
    private let engine: Engine

    private enum Engine {
        case libyuv(FilterMode)
        case swscale(OwnedScaleContext)
    }

    init(source: PixelSize, output: PixelSize, filter: ScaleFilter) throws(PodiumError) {
        self.source = source
        self.output = output
        switch filter {
        case .box, .bilinear:
            let shrinking = output.width < source.width || output.height < source.height
            engine = .libyuv(filter == .box && shrinking ? kFilterBox : kFilterBilinear)
        case .fast, .bicubic, .lanczos:
            guard let context = OwnedScaleContext(sws_getContext(
                Int32(source.width), Int32(source.height), AV_PIX_FMT_YUV420P,
                Int32(output.width), Int32(output.height), AV_PIX_FMT_YUV420P, filter.swsFlags, nil, nil, nil
            )) else {
                throw .software("libswscale cannot scale \(source) yuv420p to \(output)")
            }
            engine = .swscale(context)
        }
    }

    /// Scales `picture` (of `source` size) into `target` at `origin` (even coordinates).
    ///
    /// The corresponding C functions are libyuv's `I420Scale` and `sws_scale`.
    func scale(_ picture: UnsafePointer<AVFrame>, into target: UnsafeMutablePointer<AVFrame>,
               at origin: (x: Int, y: Int)) {
        let from = Planes(picture)
        var to = Planes(target)
        // Chroma planes have half the rows and columns.
        to.luma = to.luma.map { $0 + origin.y * Int(to.lumaStride) + origin.x }
        to.blue = to.blue.map { $0 + origin.y / 2 * Int(to.chromaStride) + origin.x / 2 }
        to.red = to.red.map { $0 + origin.y / 2 * Int(to.chromaStride) + origin.x / 2 }
        switch engine {
        case .libyuv(let mode):
            _ = I420Scale(from.luma, from.lumaStride, from.blue, from.chromaStride, from.red, from.chromaStride,
                          Int32(source.width), Int32(source.height),
                          to.luma, to.lumaStride, to.blue, to.chromaStride, to.red, to.chromaStride,
                          Int32(output.width), Int32(output.height), mode)
        case .swscale(let context):
            typealias Plane = UnsafePointer<UInt8>?
            var sourcePlanes: (Plane, Plane, Plane, Plane) =
                (UnsafePointer(from.luma), UnsafePointer(from.blue), UnsafePointer(from.red), nil)
            var sourceStrides = (from.lumaStride, from.chromaStride, from.chromaStride, Int32(0))
            var targetPlanes = (to.luma, to.blue, to.red, UnsafeMutablePointer<UInt8>?.none)
            var targetStrides = (to.lumaStride, to.chromaStride, to.chromaStride, Int32(0))
            withUnsafePointer(to: &sourcePlanes) { planes in
                withUnsafePointer(to: &sourceStrides) { strides in
                    withUnsafePointer(to: &targetPlanes) { outPlanes in
                        withUnsafePointer(to: &targetStrides) { outStrides in
                            let output = UnsafeRawPointer(outPlanes)
                                .assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
                            _ = sws_scale(context.pointer, UnsafeRawPointer(planes).assumingMemoryBound(to: Plane.self),
                                          UnsafeRawPointer(strides).assumingMemoryBound(to: Int32.self), 0,
                                          Int32(source.height), output,
                                          UnsafeRawPointer(outStrides).assumingMemoryBound(to: Int32.self))
                        }
                    }
                }
            }
        }
    }
}

/// The three planes of a 4:2:0 `AVFrame` and their strides (the two chroma planes share one).
struct Planes {
    var luma: UnsafeMutablePointer<UInt8>?
    var blue: UnsafeMutablePointer<UInt8>?
    var red: UnsafeMutablePointer<UInt8>?
    var lumaStride: Int32
    var chromaStride: Int32

    init(_ frame: UnsafePointer<AVFrame>) {
        (luma, blue, red) = (frame.pointee.data.0, frame.pointee.data.1, frame.pointee.data.2)
        (lumaStride, chromaStride) = (frame.pointee.linesize.0, frame.pointee.linesize.1)
    }
}
