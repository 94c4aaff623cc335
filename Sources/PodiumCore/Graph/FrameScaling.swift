/// Scales a rectangle of captured frames to a window's picture, BGRA to BGRA: the window stage's
/// raw path, with no encoder involved. libyuv and libswscale behind it (PodiumMedia).
///
/// Made on the window stage's thread and used there alone.
public protocol FrameScaling: AnyObject {
    /// The size of the rectangle it reads, and of the picture it writes.
    var crop: PixelSize { get }
    var output: PixelSize { get }
    /// Whether `scale(_:from:rows:into:)` works (libyuv's filters, or no scaling).
    var scalesRows: Bool { get }
    /// Scales `source` (a rectangle of `frame` of size `crop`) into `pixels`, rows of `output.width * 4` bytes.
    func scale(_ frame: CapturedFrame, from source: PixelRect, into pixels: UnsafeMutableRawPointer)
    /// Redraws only `rows` of the output in `pixels`, which holds the output of the frame before.
    func scale(_ frame: CapturedFrame, from source: PixelRect, rows: RowBands, into pixels: UnsafeMutableRawPointer)
}
