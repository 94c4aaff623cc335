import CFFmpeg
import CYUV
import PodiumCore

/// A VAAPI device opened through FFmpeg, and its pool of NV12 surfaces of one size: what a
/// `*_vaapi` encoder takes its pictures in.
///
/// Each picture is written straight into a surface mapped for writing (libyuv interleaves the
/// 4:2:0 chroma as it copies), so it is copied once on its way to the GPU.
/// Not thread-safe: used on its encoder's thread alone.
final class VAAPIFrames {
    private let device: UnsafeMutablePointer<AVBufferRef>
    /// The surfaces' pool, which an encoder's context references.
    let frames: UnsafeMutablePointer<AVBufferRef>
    private let ownedSurface: OwnedFrame
    private let ownedMapped: OwnedFrame
    /// The surface `upload` filled last, handed to the encoder.
    var surface: UnsafeMutablePointer<AVFrame> { ownedSurface.pointer }
    private var mapped: UnsafeMutablePointer<AVFrame> { ownedMapped.pointer }

    /// Opens `device` (a render node's path, or an X display) with surfaces of `size`.
    /// - Throws: FFmpeg's reason when the device or its surfaces cannot be made.
    init(device name: String, size: PixelSize) throws(FFmpegError) {
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        // FFmpeg takes a name that is no path for a DRM device first, and never $DISPLAY by itself.
        if !name.hasPrefix("/") { av_dict_set(&options, "connection_type", "x11", 0) }
        var opened: UnsafeMutablePointer<AVBufferRef>?
        try FFmpegLog.quietly { () throws(FFmpegError) in
            _ = try check(av_hwdevice_ctx_create(&opened, AV_HWDEVICE_TYPE_VAAPI, name, options, 0))
        }
        guard let device = opened else { throw FFmpegError(code: cffmpeg_averror(ENOMEM)) }
        guard let surface = OwnedFrame(), let mapped = OwnedFrame(), let frames = av_hwframe_ctx_alloc(device) else {
            var owned: UnsafeMutablePointer<AVBufferRef>? = device
            av_buffer_unref(&owned)
            throw FFmpegError(code: cffmpeg_averror(ENOMEM))
        }
        self.device = device
        self.frames = frames
        ownedSurface = surface
        ownedMapped = mapped
        frames.pointee.data.withMemoryRebound(to: AVHWFramesContext.self, capacity: 1) { context in
            context.pointee.format = AV_PIX_FMT_VAAPI
            context.pointee.sw_format = AV_PIX_FMT_NV12
            context.pointee.width = Int32(size.width)
            context.pointee.height = Int32(size.height)
            // Surfaces are made as the encoder holds them; a few are in flight at once.
            context.pointee.initial_pool_size = 0
        }
        try check(av_hwframe_ctx_init(frames))
    }

    deinit {
        av_frame_unref(surface)
        var frames: UnsafeMutablePointer<AVBufferRef>? = self.frames
        av_buffer_unref(&frames)
        var device: UnsafeMutablePointer<AVBufferRef>? = self.device
        av_buffer_unref(&device)
    }

    /// Lets the surface go back to the pool once the encoder holds its own reference to it.
    func release() {
        av_frame_unref(surface)
    }

    /// Copies the 4:2:0 `picture` into a free surface (`surface`), with its time and type.
    ///
    /// The corresponding C functions are `av_hwframe_get_buffer`, `av_hwframe_map` and libyuv's `I420ToNV12`.
    func upload(_ picture: UnsafeMutablePointer<AVFrame>) throws(FFmpegError) {
        av_frame_unref(surface)
        try check(av_hwframe_get_buffer(frames, surface, 0))
        let flags = Int32(AV_HWFRAME_MAP_WRITE | AV_HWFRAME_MAP_OVERWRITE)
        try check(av_hwframe_map(mapped, surface, flags))
        defer { av_frame_unref(mapped) }
        let width = min(picture.pointee.width, mapped.pointee.width)
        let height = min(picture.pointee.height, mapped.pointee.height)
        let source = picture.pointee
        let target = mapped.pointee
        let result = I420ToNV12(source.data.0, source.linesize.0, source.data.1, source.linesize.1,
                                source.data.2, source.linesize.2, target.data.0, target.linesize.0,
                                target.data.1, target.linesize.1, width, height)
        guard result == 0 else { throw FFmpegError(code: cffmpeg_averror(EINVAL)) }
        surface.pointee.pts = picture.pointee.pts
        surface.pointee.pict_type = picture.pointee.pict_type
    }
}
