import CFFmpeg

// One owner per kind of C object, each freeing its object when it goes away: an init that throws
// halfway frees what it had made, and nothing else needs to remember to.

/// An `AVCodecContext`.
struct OwnedCodecContext: ~Copyable {
    let pointer: UnsafeMutablePointer<AVCodecContext>

    init?(_ codec: UnsafePointer<AVCodec>) {
        guard let pointer = avcodec_alloc_context3(codec) else { return nil }
        self.pointer = pointer
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&owned)
    }
}

/// An `AVFrame` and the buffers it holds.
struct OwnedFrame: ~Copyable {
    let pointer: UnsafeMutablePointer<AVFrame>

    init?() {
        guard let pointer = av_frame_alloc() else { return nil }
        self.pointer = pointer
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&owned)
    }
}

/// An `AVPacket` and the reference it holds.
struct OwnedPacket: ~Copyable {
    let pointer: UnsafeMutablePointer<AVPacket>

    init?() {
        guard let pointer = av_packet_alloc() else { return nil }
        self.pointer = pointer
    }

    deinit {
        var owned: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&owned)
    }
}

/// A libswscale context.
final class OwnedScaleContext {
    let pointer: OpaquePointer

    init?(_ pointer: OpaquePointer?) {
        guard let pointer else { return nil }
        self.pointer = pointer
    }

    deinit { sws_freeContext(pointer) }
}

/// A libswresample context.
struct OwnedResampler: ~Copyable {
    let pointer: OpaquePointer

    init?(_ pointer: OpaquePointer?) {
        guard let pointer else { return nil }
        self.pointer = pointer
    }

    deinit {
        var owned: OpaquePointer? = pointer
        swr_free(&owned)
    }
}

/// A first-in first-out buffer of samples.
struct OwnedAudioFifo: ~Copyable {
    let pointer: OpaquePointer

    init?(_ pointer: OpaquePointer?) {
        guard let pointer else { return nil }
        self.pointer = pointer
    }

    deinit { av_audio_fifo_free(pointer) }
}

/// `count` values kept across frames, so the hot path allocates nothing.
struct OwnedArray<Element>: ~Copyable {
    let pointer: UnsafeMutablePointer<Element>
    private let count: Int

    init(repeating value: Element, count: Int) {
        pointer = .allocate(capacity: count)
        pointer.initialize(repeating: value, count: count)
        self.count = count
    }

    deinit {
        pointer.deinitialize(count: count)
        pointer.deallocate()
    }
}
