import CPipeWire
import CYUV
public import Logging
public import PodiumCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Takes frames of a PipeWire video stream: the ScreenCast portal's, or any video node.
///
/// PipeWire's own thread delivers frames as the producer makes them. Each is copied at once into
/// a frame buffer (PipeWire's buffer goes back to the producer), and the newest waits for the
/// next slot of the run's grid, which hands it on with the rows that changed since the frame
/// before (from the stream's damage metadata, or all of them). So capture stays paced to
/// `--fps`: never faster, skipping rather than bursting. A slot with no new frame is unchanged;
/// one that must send a frame all the same sends the last one again.
///
/// Made on the capture thread and used there, but for the inbox PipeWire's thread fills.
public final class PipeWireCapture: FrameGrabber {
    private let stream: OpaquePointer
    private let inbox: PipeWireInbox
    /// The portal's session, which says when the desktop stops sharing.
    private let remote: (any PipeWireRemote)?
    /// The last frame handed on, held to hand on again when one is asked for and nothing changed.
    private var reader = InboxReader()
    public let description: String
    private let logger: Logger
    /// The producer stopped sending (said once), until it sends again.
    private var paused = false

    /// Connects to PipeWire (through the plan's remote, the portal's session, or the user's
    /// daemon) and reads the plan's node.
    /// - Parameter bufferCount: frames that may be in flight at once across every stage.
    /// - Throws: 69 when PipeWire cannot be reached.
    public init(plan: PipeWirePlan, bufferCount: Int, clock: any PacingClock = MonotonicClock(),
                logger: Logger) throws(PodiumError) {
        let descriptor = try plan.remote?.connect() ?? -1
        // One waiting in the inbox (two when one is held back), the rest downstream.
        let inbox = PipeWireInbox(bufferCount: max(3, bufferCount + (plan.hasOwnRate ? 2 : 1)), clock: clock,
                                  holdsOneBack: plan.hasOwnRate)
        let context = Unmanaged.passRetained(inbox).toOpaque()
        var error = [CChar](repeating: 0, count: 256)
        let wanted = plan.wantedSize ?? PixelSize(width: 0, height: 0)
        let opened = cpw_capture_open(descriptor, plan.node, UInt32(wanted.width), UInt32(wanted.height), {
            context, pixels, width, height, stride, format, regions, count in
            guard let context, let pixels else { return }
            Unmanaged<PipeWireInbox>.fromOpaque(context).takeUnretainedValue()
                .receive(pixels, size: PixelSize(width: Int(width), height: Int(height)), bytesPerRow: Int(stride),
                         layout: PipeWireInbox.Layout(format),
                         regions: regions.map { UnsafeBufferPointer(start: $0, count: Int(count)) })
        }, { context, visible, x, y, image, width, height, hotX, hotY in
            guard let context else { return }
            let size = PixelSize(width: Int(width), height: Int(height))
            Unmanaged<PipeWireInbox>.fromOpaque(context).takeUnretainedValue()
                .pointed(visible: visible != 0, x: Int(x), y: Int(y),
                         image: image.map { UnsafeBufferPointer(start: $0, count: size.area) }, size: size,
                         hotspotX: Int(hotX), hotspotY: Int(hotY))
        }, { context, state, error in
            guard let context else { return }
            Unmanaged<PipeWireInbox>.fromOpaque(context).takeUnretainedValue()
                .stateChanged(state, error: error.map { String(cString: $0) })
        }, context, &error, error.count)
        guard let opened else {
            Unmanaged<PipeWireInbox>.fromOpaque(context).release()
            throw .unavailable("PipeWire: \(String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))")
        }
        stream = opened
        self.inbox = inbox
        remote = plan.remote
        description = plan.name
        self.logger = logger
    }

    deinit {
        // No handler runs after this: the inbox can go.
        cpw_capture_close(stream)
        Unmanaged.passUnretained(inbox).release()
        inbox.frames.drain()
    }

    /// The size of the first frame, waiting for it at most `timeout` seconds; `nil` when none came.
    public func firstSize(within timeout: Double) -> PixelSize? {
        inbox.frames.firstSize(within: timeout)
    }

    /// Where the stream's cursor metadata says the pointer is; `nil` when it sends none.
    public var pointer: PointerReport? { inbox.pointer }

    public func capture(sequence: UInt64, time: UInt64, slotTime: UInt64, evenIfUnchanged: Bool)
        throws(PodiumError) -> CaptureOutcome {
        if let ended = remote?.ended {
            throw .unavailable(ended)
        }
        if let ended = inbox.frames.ended {
            throw .unavailable("the PipeWire stream \(description) ended: \(ended)")
        }
        // A producer that stopped (or went) leaves the stream paused: the last picture is held.
        if inbox.isPaused != paused {
            paused.toggle()
            let said = paused ? "\(description) paused: its producer stopped sending; waiting for it"
                : "capturing \(description) again"
            logger.notice("\(said)")
        }
        let arrived = inbox.frames.take()
        if arrived == nil && paused { return .waiting }
        return reader.next(arrived, sequence: sequence, slotTime: slotTime, evenIfUnchanged: evenIfUnchanged)
    }
}

/// What PipeWire's thread leaves for the capture thread: the frames (the newest, in a buffer of
/// the inbox's own), where the producer says the pointer is, and the stream's state. Thread-safe.
final class PipeWireInbox: Sendable {
    private struct State: Sendable {
        /// Streaming once, then paused.
        var streamed = false
        var paused = false
        /// Where the cursor metadata last put the pointer, and its last picture.
        var pointer: PointerReport?
        var cursor: CursorImage?
    }

    let frames: FrameInbox
    private let state = Mutex(State())

    init(bufferCount: Int, clock: any PacingClock, holdsOneBack: Bool) {
        frames = FrameInbox(bufferCount: bufferCount, clock: clock, holdsOneBack: holdsOneBack)
    }

    /// How a frame's pixels come.
    enum Layout {
        /// Four bytes a pixel, blue first.
        case bgra
        /// A webcam's YUYV 4:2:2.
        case yuyv
        /// A webcam's JPEG: `bytesPerRow` is then its length.
        case jpeg

        init(_ format: UInt32) {
            self = switch Int(format) {
            case CPW_FORMAT_YUY2: .yuyv
            case CPW_FORMAT_MJPG: .jpeg
            default: .bgra
            }
        }
    }

    /// On PipeWire's thread: copies a frame into a free buffer (converted to BGRA from a webcam's
    /// YUYV or JPEG) and makes it the newest.
    func receive(_ pixels: UnsafePointer<UInt8>, size: PixelSize, bytesPerRow: Int, layout: Layout,
                 regions: UnsafeBufferPointer<cpw_region>?) {
        guard let buffer = frames.freeBuffer(for: size) else { return }
        let rowBytes = size.width * 4
        let target = buffer.bytes.assumingMemoryBound(to: UInt8.self)
        switch layout {
        case .yuyv:
            YUY2ToARGB(pixels, Int32(bytesPerRow), target, Int32(rowBytes), Int32(size.width), Int32(size.height))
        case .jpeg:
            // A JPEG that does not decode, or is not of the size agreed, is left out (the last good
            // picture stays).
            let width = Int32(size.width), height = Int32(size.height)
            guard MJPGToARGB(pixels, bytesPerRow, target, Int32(rowBytes), width, height, width, height) == 0 else {
                return frames.giveBack(buffer)
            }
        case .bgra where bytesPerRow == rowBytes:
            buffer.bytes.copyMemory(from: pixels, byteCount: rowBytes * size.height)
        case .bgra:
            for row in 0..<size.height {
                (buffer.bytes + row * rowBytes).copyMemory(from: pixels + row * bytesPerRow, byteCount: rowBytes)
            }
        }
        var rows: RowBands? = nil
        if let regions {
            var bands = RowBands()
            for region in regions {
                let top = min(max(0, Int(region.y)), size.height)
                bands.insert(top..<min(top + Int(region.height), size.height))
            }
            rows = bands
        }
        frames.deliver(buffer, size: size, rows: rows)
    }

    /// On PipeWire's thread: where the producer says the pointer is, and its picture when it
    /// sends one (kept until it sends another).
    func pointed(visible: Bool, x: Int, y: Int, image: UnsafeBufferPointer<UInt32>?, size: PixelSize,
                 hotspotX: Int, hotspotY: Int) {
        state.withLock { state in
            if let image, let kept = state.cursor, kept.size == size, kept.hotspotX == hotspotX,
               kept.hotspotY == hotspotY, kept.pixels.elementsEqual(image) {
                // The same picture again, as some producers send with every frame.
            } else if let image {
                state.cursor = CursorImage(pixels: Array(image), size: size, hotspotX: hotspotX, hotspotY: hotspotY)
            }
            state.pointer = visible ? PointerReport(x: x, y: y, cursor: state.cursor) : nil
        }
    }

    /// Where the pointer is now, as the producer last said.
    var pointer: PointerReport? { state.withLock { $0.pointer } }

    /// Whether the stream, once streaming, is paused now.
    var isPaused: Bool { state.withLock { $0.paused } }

    /// On PipeWire's thread: the stream's state; an end is kept for the capture thread to say.
    func stateChanged(_ code: Int32, error: String?) {
        state.withLock { state in
            switch code {
            case Int32(CPW_STATE_ENDED): frames.end(error ?? "it ended")
            case Int32(CPW_STATE_STREAMING): (state.streamed, state.paused) = (true, false)
            case Int32(CPW_STATE_PAUSED): state.paused = state.streamed
            default: break
            }
        }
    }
}

extension PipeWirePlan {
    /// Reads node `node` until its first frame, for the size of its pictures.
    /// - Parameters:
    ///   - name: what it shows, for headings (`PipeWire node 42` by default).
    ///   - remote: where the connection to PipeWire comes from (the portal's session).
    /// - Throws: 69 when PipeWire cannot be reached, or the node sends no picture within 5 s.
    public static func look(node: UInt32, name: String? = nil, remote: (any PipeWireRemote)? = nil,
                            wantedSize: PixelSize? = nil) throws(PodiumError) -> PipeWirePlan {
        var plan = PipeWirePlan(node: node, size: PixelSize(width: 0, height: 0), name: name, remote: remote)
        plan.wantedSize = wantedSize
        let probe = try PipeWireCapture(plan: plan, bufferCount: 1,
                                        logger: Logger(label: "podium-probe") { _ in SwiftLogNoOpLogHandler() })
        guard let size = probe.firstSize(within: 5) else {
            throw .unavailable("\(plan.name) sent no picture within 5 s"
                               + (remote == nil ? " (is it a video source? 'pw-cli ls Node' lists them)" : ""))
        }
        plan.size = size
        return plan
    }
}
