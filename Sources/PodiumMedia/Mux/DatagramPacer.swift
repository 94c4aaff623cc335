import CFFmpeg
import PodiumCore

/// Sends an MPEG-TS stream's datagrams through libavformat's UDP protocol spread over half of each
/// frame's interval instead of all at once. A 1080p keyframe is a few hundred datagrams: sent in
/// one burst, they overflow a receiver's socket buffer before its reader wakes up, and every
/// I-frame arrives with holes. Spread, a frame leaves within half an interval (and, after the
/// thread was held up, that much later), so pacing adds about that much latency. Datagrams leave
/// in bursts of up to eight (about 10 KB, nothing to a socket buffer), so a small frame costs no
/// sleep and a keyframe one every eight datagrams.
final class DatagramPacer {
    /// libavformat's UDP output; every datagram is handed to it whole and flushed at once.
    private var inner: UnsafeMutablePointer<AVIOContext>?
    private let datagramSize: Int
    /// The time each packet's datagrams are spread over.
    private let window: UInt64
    private let interrupt: StopFlag
    private let clock = MonotonicClock()
    /// When the next burst is due, the gap between the current packet's bursts, and the datagrams
    /// sent of the burst under way.
    private var nextSend: UInt64 = 0
    private var spacing: UInt64 = 0
    private var sentInBurst = 0
    /// Datagrams sent back to back.
    private static let burst = 8
    /// A wait shorter than this is not worth a sleep: the timer's own slack is about as long.
    private static let shortestSleep: UInt64 = 200_000

    /// Takes over `inner`, which it closes.
    init(inner: UnsafeMutablePointer<AVIOContext>, datagramSize: Int, framesPerSecond: Int, interrupt: StopFlag) {
        self.inner = inner
        self.datagramSize = datagramSize
        window = 500_000_000 / UInt64(max(framesPerSecond, 1))
        self.interrupt = interrupt
    }

    /// Makes the `AVIOContext` the muxer writes to; returns 0 or a negative AVERROR.
    func open(_ io: inout UnsafeMutablePointer<AVIOContext>?) -> Int32 {
        WriteCallbackIO.open(&io, size: datagramSize, owner: self) { opaque, bytes, count in
            guard let opaque, let bytes else { return cffmpeg_averror(EINVAL) }
            return Unmanaged<DatagramPacer>.fromOpaque(opaque).takeUnretainedValue().send(bytes, count: count)
        }
    }

    /// Frees what `open` made and closes the UDP output.
    func close(_ io: inout UnsafeMutablePointer<AVIOContext>?) {
        WriteCallbackIO.close(&io)
        avio_closep(&inner)
    }

    /// The muxer is about to write a picture of `bytes`: its bursts share the window (what else
    /// the muxer writes until the next picture, such as sound, goes out in the same bursts).
    func beginPacket(bytes: Int) {
        let datagrams = max(1, (bytes + datagramSize - 1) / datagramSize)
        spacing = window / UInt64((datagrams + Self.burst - 1) / Self.burst)
        // A packet never starts earlier than now, and a late one does not burst to catch up.
        nextSend = max(nextSend, clock.now())
        sentInBurst = 0
    }

    private func send(_ bytes: UnsafeMutablePointer<UInt8>, count: Int32) -> Int32 {
        guard let inner else { return cffmpeg_averror(EINVAL) }
        if sentInBurst == 0 && nextSend > clock.now() + Self.shortestSleep {
            if interrupt.isRaised { return cffmpeg_averror_exit() }
            clock.sleep(until: nextSend)
        }
        avio_write(inner, bytes, count)
        avio_flush(inner)
        sentInBurst += 1
        if sentInBurst == Self.burst {
            sentInBurst = 0
            // Held up for longer than a gap (a busy machine): the rest of the packet keeps its
            // gaps from now, rather than leaving at once to catch up and overflowing the receiver.
            let now = clock.now()
            nextSend = (now > nextSend + spacing ? now : nextSend) + spacing
        }
        return inner.pointee.error < 0 ? inner.pointee.error : count
    }
}
