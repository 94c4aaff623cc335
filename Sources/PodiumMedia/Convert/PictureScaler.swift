public import PodiumCore
import CFFmpeg
import CYUV

/// Scales a rectangle of captured frames to a window's picture size, BGRA to BGRA: the window
/// branch's raw path, with no encoder involved. The box and bilinear filters run in libyuv
/// (several times faster than libswscale here, with exact colours); the others in libswscale.
///
/// Not thread-safe: confine to the window thread.
public final class PictureScaler: @unchecked Sendable {
    /// The source rectangle size and output size this scaler was made for.
    public let crop: PixelSize
    public let output: PixelSize
    /// libswscale, for the filters libyuv lacks; `nil` when libyuv scales.
    private let converter: FrameConverter?
    private let mode: FilterMode
    // Kept across frames so the hot path allocates nothing.
    private let planes = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>.allocate(capacity: 4)
    private let strides = UnsafeMutablePointer<Int32>.allocate(capacity: 4)

    public init(crop: PixelSize, output: PixelSize, filter: ScaleFilter) throws(PodiumError) {
        self.crop = crop
        self.output = output
        let shrinking = output.width < crop.width || output.height < crop.height
        switch filter {
        case .box:
            mode = shrinking ? kFilterBox : kFilterBilinear
            converter = nil
        case .bilinear:
            mode = kFilterBilinear
            converter = nil
        case .fast, .bicubic, .lanczos:
            mode = kFilterNone
            converter = try FrameConverter(source: crop, output: output, format: AV_PIX_FMT_BGRA, filter: filter)
        }
        planes.initialize(repeating: nil, count: 4)
        strides.initialize(repeating: 0, count: 4)
        strides[0] = Int32(output.width * 4)
    }

    deinit {
        planes.deallocate()
        strides.deallocate()
    }

    /// Scales `source` (a rectangle of `frame` of size `crop`) into `pixels`, rows of `output.width * 4` bytes.
    ///
    /// The corresponding C functions are `ARGBScale` (libyuv) and `sws_scale`.
    public func scale(_ frame: CapturedFrame, from source: PixelRect, into pixels: UnsafeMutableRawPointer) {
        guard let converter else {
            let origin = frame.buffer.bytes + source.y * frame.bytesPerRow + source.x * 4
            _ = ARGBScale(origin.assumingMemoryBound(to: UInt8.self), Int32(frame.bytesPerRow), Int32(source.width), Int32(source.height),
                          pixels.assumingMemoryBound(to: UInt8.self), Int32(output.width * 4), Int32(output.width), Int32(output.height), mode)
            return
        }
        planes[0] = pixels.assumingMemoryBound(to: UInt8.self)
        converter.convert(frame, from: source, planes: planes, strides: strides)
    }
}
