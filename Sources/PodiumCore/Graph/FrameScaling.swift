/// Scales a rectangle of captured frames to a window's picture or to its place in a composed
/// picture, BGRA to BGRA, with no encoder involved. libyuv and libswscale behind it (PodiumMedia).
///
/// Made on the window stage's thread and used there alone.
public protocol FrameScaling: AnyObject {
    /// The size of the rectangle it reads, and of the picture it writes.
    var crop: PixelSize { get }
    var output: PixelSize { get }
    /// Whether `scale(_:from:rows:into:)` works (libyuv's filters, or no scaling).
    var scalesRows: Bool { get }
    /// Scales `source` (a rectangle of `frame` of size `crop`) into `pixels`, rows `bytesPerRow`
    /// apart (at least `output.width * 4`: a picture inside a larger one).
    func scale(_ frame: CapturedFrame, from source: PixelRect, into pixels: UnsafeMutableRawPointer, bytesPerRow: Int)
    /// Redraws only `rows` of the output in `pixels`, which holds the output of the frame before.
    func scale(_ frame: CapturedFrame, from source: PixelRect, rows: RowBands, into pixels: UnsafeMutableRawPointer,
               bytesPerRow: Int)
}
