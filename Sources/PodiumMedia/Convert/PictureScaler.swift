public import PodiumCore
import CFFmpeg

/// Scales a rectangle of captured frames to a window's picture size, BGRA to BGRA: the window
/// stage's raw path, with no encoder involved.
///
/// Not thread-safe: confine to the window thread.
public final class PictureScaler: FrameScaling {
    /// The source rectangle size and output size this scaler was made for.
    public var crop: PixelSize { converter.source }
    public var output: PixelSize { converter.output }
    private let converter: FrameConverter
    private let planeArray = OwnedArray<UnsafeMutablePointer<UInt8>?>(repeating: nil, count: 4)
    private let strideArray = OwnedArray<Int32>(repeating: 0, count: 4)
    private var planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?> { planeArray.pointer }
    private var strides: UnsafeMutablePointer<Int32> { strideArray.pointer }

    public init(crop: PixelSize, output: PixelSize, filter: ScaleFilter) throws(PodiumError) {
        converter = try FrameConverter(source: crop, output: output, format: AV_PIX_FMT_BGRA, filter: filter)
    }

    /// Whether `scale(_:from:rows:into:)` works: libyuv's filters (box, bilinear, or no scaling).
    public var scalesRows: Bool { converter.redrawsRows }

    /// Redraws only `rows` of the output in `pixels`, which holds the output of the frame before.
    public func scale(_ frame: CapturedFrame, from source: PixelRect, rows: RowBands,
                      into pixels: UnsafeMutableRawPointer, bytesPerRow: Int) {
        converter.convert(frame, from: source, rows: rows, into: pixels.assumingMemoryBound(to: UInt8.self),
                          stride: Int32(bytesPerRow))
    }

    /// Scales `source` (a rectangle of `frame` of size `crop`) into `pixels`, rows `bytesPerRow` apart.
    public func scale(_ frame: CapturedFrame, from source: PixelRect, into pixels: UnsafeMutableRawPointer,
                      bytesPerRow: Int) {
        planes[0] = pixels.assumingMemoryBound(to: UInt8.self)
        strides[0] = Int32(bytesPerRow)
        converter.convert(frame, from: source, planes: planes, strides: strides)
    }
}
