import CFFmpeg
import Glibc
import PodiumCore

/// An `AVIOContext` whose bytes go to a Swift object instead of a protocol libavformat opens: it
/// hands the object every `size` bytes written (fewer at a flush).
enum WriteCallbackIO {
    typealias Write = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32

    /// Makes the context, with `owner` (kept alive by the caller until `close`) as `write`'s opaque.
    /// - Returns: 0 or a negative AVERROR, as `avio_open2` does.
    static func open(_ io: inout UnsafeMutablePointer<AVIOContext>?, size: Int, owner: AnyObject,
                     write: Write) -> Int32 {
        guard let buffer = av_malloc(size) else { return cffmpeg_averror(ENOMEM) }
        let opaque = Unmanaged.passUnretained(owner).toOpaque()
        io = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(size), 1, opaque, nil, write, nil)
        guard io != nil else {
            av_free(buffer)
            return cffmpeg_averror(ENOMEM)
        }
        return 0
    }

    /// Writes what is buffered and frees what `open` made.
    static func close(_ io: inout UnsafeMutablePointer<AVIOContext>?) {
        guard let context = io else { return }
        avio_flush(context)
        av_free(context.pointee.buffer)
        avio_context_free(&io)
    }
}

/// libavformat's output to a client's socket, which the muxer writes to: writes wait for the
/// socket a tenth of a second at a time, so a stop (`interrupt`) gets through to a client that
/// stopped reading. Owns the socket.
final class SocketWriter: Sendable {
    let descriptor: Int32
    let interrupt: StopFlag

    init(descriptor: Int32, interrupt: StopFlag) {
        self.descriptor = descriptor
        self.interrupt = interrupt
    }

    deinit { Glibc.close(descriptor) }

    /// Makes the `AVIOContext`; returns 0 or a negative AVERROR, as `avio_open2` does.
    func open(_ io: inout UnsafeMutablePointer<AVIOContext>?) -> Int32 {
        WriteCallbackIO.open(&io, size: 32_768, owner: self) { opaque, bytes, count in
            guard let opaque, let bytes else { return cffmpeg_averror(EINVAL) }
            return Unmanaged<SocketWriter>.fromOpaque(opaque).takeUnretainedValue().send(bytes, count: Int(count))
        }
    }

    /// Frees what `open` made; the socket is closed with the writer.
    func close(_ io: inout UnsafeMutablePointer<AVIOContext>?) { WriteCallbackIO.close(&io) }

    private func send(_ bytes: UnsafePointer<UInt8>, count: Int) -> Int32 {
        var offset = 0
        while offset < count {
            if interrupt.isRaised { return cffmpeg_averror_exit() }
            var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let polled = poll(&ready, 1, 100)
            if polled == 0 || (polled < 0 && errno == EINTR) { continue }
            let sent = polled < 0 ? -1 : Glibc.send(descriptor, bytes + offset, count - offset, Int32(MSG_NOSIGNAL))
            if sent > 0 {
                offset += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EINTR) {
                continue
            } else {
                return cffmpeg_averror(sent < 0 ? errno : EPIPE)
            }
        }
        return Int32(count)
    }
}
