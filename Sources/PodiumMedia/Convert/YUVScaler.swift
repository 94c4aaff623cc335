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
    func scale(_ picture: UnsafePointer<AVFrame>, into target: UnsafeMutablePointer<AVFrame>, at origin: (x: Int, y: Int)) {
        let from = Planes(picture)
        var to = Planes(target)
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            to.data[plane] = to.data[plane].map { $0 + (origin.y >> shift) * Int(to.strides[plane]) + (origin.x >> shift) }
        }
        switch engine {
        case .libyuv(let mode):
            _ = I420Scale(from.data[0], from.strides[0], from.data[1], from.strides[1], from.data[2], from.strides[2],
                          Int32(source.width), Int32(source.height),
                          to.data[0], to.strides[0], to.data[1], to.strides[1], to.data[2], to.strides[2],
                          Int32(output.width), Int32(output.height), mode)
        case .swscale(let context):
            var sourcePlanes: (UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?) =
                (UnsafePointer(from.data[0]), UnsafePointer(from.data[1]), UnsafePointer(from.data[2]), nil)
            var sourceStrides = (from.strides[0], from.strides[1], from.strides[2], Int32(0))
            var targetPlanes = (to.data[0], to.data[1], to.data[2], UnsafeMutablePointer<UInt8>?.none)
            var targetStrides = (to.strides[0], to.strides[1], to.strides[2], Int32(0))
            withUnsafePointer(to: &sourcePlanes) { planes in
                withUnsafePointer(to: &sourceStrides) { strides in
                    withUnsafePointer(to: &targetPlanes) { outPlanes in
                        withUnsafePointer(to: &targetStrides) { outStrides in
                            _ = sws_scale(context.pointer,
                                          UnsafeRawPointer(planes).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                                          UnsafeRawPointer(strides).assumingMemoryBound(to: Int32.self), 0,
                                          Int32(source.height),
                                          UnsafeRawPointer(outPlanes).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                                          UnsafeRawPointer(outStrides).assumingMemoryBound(to: Int32.self))
                        }
                    }
                }
            }
        }
    }
}

/// The three planes of a 4:2:0 `AVFrame` and their strides (inline: read once a frame).
struct Planes {
    var data: InlineArray<3, UnsafeMutablePointer<UInt8>?>
    var strides: InlineArray<3, Int32>

    init(_ frame: UnsafePointer<AVFrame>) {
        data = .init(repeating: nil)
        strides = .init(repeating: 0)
        withUnsafeBytes(of: frame.pointee.data) { bytes in
            for plane in 0..<3 { data[plane] = bytes.load(fromByteOffset: plane * 8, as: UnsafeMutablePointer<UInt8>?.self) }
        }
        withUnsafeBytes(of: frame.pointee.linesize) { bytes in
            for plane in 0..<3 { strides[plane] = bytes.load(fromByteOffset: plane * 4, as: Int32.self) }
        }
    }
}
