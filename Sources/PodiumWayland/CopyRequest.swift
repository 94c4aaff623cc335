import CWayland
import PodiumCore

/// One screencopy frame: the compositor offers a buffer shape, Podium copies into a buffer of
/// that shape, and the compositor says when the picture is in it (and, with damage, where it
/// changed since the copy before).
///
/// Used on its display's thread alone.
final class CopyRequest {
    /// The buffer the compositor asks for.
    struct Offer: Equatable {
        var format: UInt32
        var size: PixelSize
        var bytesPerRow: Int
    }

    enum State {
        /// Waiting for the compositor's offer.
        case asked
        /// Every offer made: a buffer may be copied into.
        case offered(Offer)
        /// Copying into `buffer`.
        case copying(FrameBuffer)
        /// The picture is in `buffer`, as shown at `shownAt` (on the monotonic clock).
        case ready(FrameBuffer, shownAt: UInt64)
        /// The compositor could not copy (the output changed or went).
        case failed
        /// The picture was handed on: its buffer is the stages' now.
        case taken
    }

    private let frame: OpaquePointer
    private(set) var state = State.asked
    private(set) var offer: Offer?
    /// The rows that changed since the copy before.
    private(set) var damage = RowBands()
    /// The picture comes bottom row first.
    private(set) var flipped = false
    /// Version 3 says when every offer is made; before, the one shared-memory offer is all.
    private let announcesOffers: Bool
    private let listener = UnsafeMutablePointer<zwlr_screencopy_frame_v1_listener>.allocate(capacity: 1)

    init(frame: OpaquePointer, announcesOffers: Bool) {
        self.frame = frame
        self.announcesOffers = announcesOffers
        listener.initialize(to: zwlr_screencopy_frame_v1_listener(
            buffer: { data, _, format, width, height, stride in
                guard let data else { return }
                let request = CopyRequest.from(data)
                request.offer = Offer(format: format, size: PixelSize(width: Int(width), height: Int(height)),
                                      bytesPerRow: Int(stride))
                if !request.announcesOffers { request.offered() }
            },
            flags: { data, _, flags in
                guard let data else { return }
                CopyRequest.from(data).flipped = flags & ZWLR_SCREENCOPY_FRAME_V1_FLAGS_Y_INVERT.rawValue != 0
            },
            ready: { data, _, secondsHigh, secondsLow, nanoseconds in
                guard let data else { return }
                let request = CopyRequest.from(data)
                guard case .copying(let buffer) = request.state else { return }
                let seconds = UInt64(secondsHigh) << 32 | UInt64(secondsLow)
                request.state = .ready(buffer, shownAt: seconds * 1_000_000_000 + UInt64(nanoseconds))
            },
            failed: { data, _ in
                guard let data else { return }
                CopyRequest.from(data).fail()
            },
            damage: { data, _, _, y, _, height in
                guard let data else { return }
                let request = CopyRequest.from(data)
                let rows = request.offer?.size.height ?? 0
                request.damage.insert(min(Int(y), rows)..<min(Int(y) + Int(height), rows))
            },
            linux_dmabuf: { _, _, _, _, _ in },
            buffer_done: { data, _ in
                guard let data else { return }
                CopyRequest.from(data).offered()
            }))
        zwlr_screencopy_frame_v1_add_listener(frame, listener, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        zwlr_screencopy_frame_v1_destroy(frame)
        listener.deallocate()
        giveBack()
    }

    /// The picture, now handed on: it is no longer this request's to give back.
    func take() {
        state = .taken
    }

    /// A copy that never finished, or was never handed on, gives its buffer back to its pool.
    private func giveBack() {
        switch state {
        case .copying(let buffer), .ready(let buffer, _): buffer.share(with: 0)
        default: break
        }
    }

    private static func from(_ data: UnsafeMutableRawPointer) -> CopyRequest {
        Unmanaged<CopyRequest>.fromOpaque(data).takeUnretainedValue()
    }

    private func offered() {
        guard case .asked = state else { return }
        state = offer.map(State.offered) ?? .failed
    }

    private func fail() {
        giveBack()
        state = .failed
    }

    /// Asks the compositor to copy the picture into `buffer` (whose Wayland buffer is `target`):
    /// at once, or when the output next changes.
    func copy(into buffer: FrameBuffer, as target: OpaquePointer, withDamage: Bool) {
        state = .copying(buffer)
        if withDamage {
            zwlr_screencopy_frame_v1_copy_with_damage(frame, target)
        } else {
            zwlr_screencopy_frame_v1_copy(frame, target)
        }
    }
}
