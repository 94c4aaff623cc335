import CFFmpeg
import PodiumCore

/// Podium's colour tags in libavcodec's terms, for the encoder and for every container.
extension ColorTags {
    var ffmpegRange: AVColorRange { range == .full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG }
    var ffmpegMatrix: AVColorSpace {
        switch matrix { case .bt601: AVCOL_SPC_SMPTE170M }
    }
    var ffmpegPrimaries: AVColorPrimaries {
        switch primaries { case .bt709: AVCOL_PRI_BT709 }
    }
    var ffmpegTransfer: AVColorTransferCharacteristic {
        switch transfer { case .sRGB: AVCOL_TRC_IEC61966_2_1 }
    }
    var ffmpegChromaLocation: AVChromaLocation {
        switch chromaLocation { case .center: AVCHROMA_LOC_CENTER }
    }
    /// The 4:2:0 pixel format of pictures with these tags (libavcodec marks full range in the format's name).
    var ffmpegPixelFormat: AVPixelFormat { range == .full ? AV_PIX_FMT_YUVJ420P : AV_PIX_FMT_YUV420P }
}
