import CWayland
public import Logging
public import PodiumCore
#if canImport(Glibc)
import Glibc
#endif

/// Takes frames of one output of a wlroots compositor (sway, Hyprland, river, labwc) through
/// its screencopy protocol, into shared-memory buffers the compositor writes.
///
/// With damage tracking a copy is asked for at once and the compositor answers only when the
/// output changed (`copy_with_damage`), saying where: a still screen costs nothing, and a
/// change is handed on at the next slot with its rows. A frame asked for when nothing changed
/// (the idle repeat, a new output's first) is the last one again. Without damage tracking
/// (`--constant-fps`), every slot takes the output's next picture.
///
/// Not thread-safe: made on the capture thread, which owns the connection, and used there alone.
public final class ScreencopyCapture: FrameGrabber {
    private let display: WaylandDisplay
    /// The output captured, by name.
    public let outputName: String
    private let drawsCursor: Bool
    private let tracksDamage: Bool
    private let bufferCount: Int
    private let logger: Logger
    /// Buffers of the size the compositor last offered.
    private var buffers: SharedBuffers?
    /// The copy asked for and not yet handed on.
    private var request: CopyRequest?
    /// The last frame handed on, held to hand on again when one is asked for and nothing changed.
    private var latest: CapturedFrame?
    /// Why nothing can be captured now (the output is gone), once said.
    private var missing: String?
    /// A row's room, to turn pictures that come upside down.
    private var spareRow: [UInt8] = []
    /// The slot before, to tell the rate by.
    private var previousSlot: UInt64 = 0
    /// The next copy is asked for at the next slot, not now (see `capture`).
    private var asksAtSlot = false
    private let clock = MonotonicClock()
    /// Slots at least this far apart (25 fps and slower) ask for their copy when they come; at
    /// higher rates a copy is at most a frame old anyway, and the wait would take half a slot.
    private static let lowRateInterval: UInt64 = 40_000_000
    /// How long a slot waits for its copy: a compositor frame at 60 Hz and the copy.
    private static let freshCopyWait: UInt64 = 25_000_000

    /// - Parameter bufferCount: frames that may be in flight at once across every stage.
    /// - Throws: 69 when the compositor has no screencopy or no shared memory, or no output of
    ///   that name.
    public init(display: WaylandDisplay, outputName: String, drawsCursor: Bool, tracksDamage: Bool,
                bufferCount: Int, logger: Logger) throws(PodiumError) {
        guard display.screencopy != nil, display.sharedMemory != nil else {
            throw .unavailable("the Wayland compositor at '\(display.name)' has no screencopy "
                               + "(zwlr_screencopy_manager_v1, wlroots' desktops)", remedy: .portal)
        }
        guard display.output(named: outputName) != nil else {
            let names = display.outputs.map(\.name).joined(separator: ", ")
            throw .unavailable("the Wayland display '\(display.name)' has no output \(outputName) (it has \(names))")
        }
        self.display = display
        self.outputName = outputName
        self.drawsCursor = drawsCursor
        self.tracksDamage = tracksDamage
        // One held as the latest, one being copied into, the others in flight.
        self.bufferCount = max(3, bufferCount + 1)
        self.logger = logger
        // The first picture is asked for now, so that it is there when capture starts.
        try ask()
    }

    /// Opens the compositor of `plan` and captures its output: the run's source, made on the
    /// capture thread.
    public convenience init(plan: WaylandScreenPlan, bufferCount: Int, logger: Logger) throws(PodiumError) {
        try self.init(display: WaylandDisplay(name: plan.display), outputName: plan.output,
                      drawsCursor: plan.drawsCursor, tracksDamage: plan.tracksDamage, bufferCount: bufferCount,
                      logger: logger)
    }

    deinit {
        // Every Wayland object goes before the connection does.
        request = nil
        buffers = nil
        latest?.buffer.release()
    }

    /// `HEADLESS-1 of wayland-1 with screencopy`.
    public var description: String { "\(outputName) of \(display.name) with screencopy" }

    public func capture(sequence: UInt64, time: UInt64, slotTime: UInt64, evenIfUnchanged: Bool)
        throws(PodiumError) -> CaptureOutcome {
        // The first frame is waited for a little: a run starts with a picture.
        try display.dispatch(timeout: latest == nil ? 100 : 0)
        guard display.output(named: outputName) != nil else {
            request = nil
            return wait("output \(outputName) is gone; waiting for it to come back")
        }
        if missing != nil {
            missing = nil
            logger.notice("capturing \(outputName) again")
        }
        // While the output keeps changing, a copy asked for as a frame is handed on comes a
        // compositor frame later and would wait for the next slot: most of an interval old at a
        // low rate (70 ms at 15 fps). There the copy is asked for at the slot and waited for a
        // compositor frame; when none comes the output stopped changing, and the copy stays
        // asked for, to come with the next change.
        let lowRate = tracksDamage && previousSlot > 0 && slotTime &- previousSlot >= Self.lowRateInterval
        previousSlot = slotTime
        if request == nil && asksAtSlot {
            asksAtSlot = false
            try ask()
            try waitForCopy(until: clock.now() + Self.freshCopyWait)
        }
        guard let request else {
            try ask()
            return repeated(sequence: sequence, slotTime: slotTime, asked: evenIfUnchanged)
        }
        switch request.state {
        case .offered(let offer):
            try copy(offer, for: request)
        case .ready(let buffer, let shownAt):
            request.take()
            self.request = nil
            let frame = CapturedFrame(
                buffer: buffer, size: request.offer?.size ?? PixelSize(width: 0, height: 0),
                bytesPerRow: request.offer?.bytesPerRow ?? 0, captureTime: min(shownAt, time), slotTime: slotTime,
                sequence: sequence, changedRows: latest == nil || !tracksDamage ? nil : request.damage)
            if request.flipped { flip(frame) }
            hold(frame)
            // The compositor waits for the next change while the stages take this one.
            if lowRate { asksAtSlot = true } else { try ask() }
            return .frame(frame)
        case .failed:
            // The output changed under the copy (or went): ask again.
            self.request = nil
            try ask()
        case .asked, .copying, .taken:
            break
        }
        return repeated(sequence: sequence, slotTime: slotTime, asked: evenIfUnchanged)
    }

    /// Handles the compositor's events until the copy asked for is done (or failed), or `deadline`.
    private func waitForCopy(until deadline: UInt64) throws(PodiumError) {
        while let request, case .copying = request.state {
            let now = clock.now()
            guard now < deadline else { return }
            try display.dispatch(timeout: Int32(max(1, (deadline - now) / 1_000_000)))
        }
    }

    /// The last frame again, as frame `sequence`, when one is asked for; otherwise nothing.
    private func repeated(sequence: UInt64, slotTime: UInt64, asked: Bool) -> CaptureOutcome {
        guard asked, var frame = latest else { return .unchanged }
        frame.sequence = sequence
        frame.slotTime = slotTime
        frame.changedRows = RowBands()
        return .frame(frame)
    }

    /// Keeps `frame`'s buffer as the latest, letting the one before go back to its pool.
    private func hold(_ frame: CapturedFrame) {
        frame.buffer.share(with: 1)
        latest?.buffer.release()
        latest = frame
    }

    /// Asks the compositor for the output's next picture (the next changed one, with damage),
    /// and copies into a buffer as soon as it says which: the compositor then copies the moment
    /// the output changes, and the picture is ready by the next slot.
    private func ask() throws(PodiumError) {
        guard let manager = display.screencopy, let output = display.output(named: outputName),
              let frame = zwlr_screencopy_manager_v1_capture_output(manager, drawsCursor ? 1 : 0, output.proxy)
        else {
            throw .unavailable("the Wayland compositor refused to capture \(outputName)")
        }
        let request = CopyRequest(frame: frame, announcesOffers: zwlr_screencopy_manager_v1_get_version(manager) >= 3)
        self.request = request
        // The offer comes at once: a round trip (a fraction of a millisecond) saves a slot.
        try display.roundtrip()
        if case .offered(let offer) = request.state { try copy(offer, for: request) }
    }

    /// Copies into a free buffer of the offered size, made first when the size is new.
    private func copy(_ offer: CopyRequest.Offer, for request: CopyRequest) throws(PodiumError) {
        guard [WL_SHM_FORMAT_XRGB8888.rawValue, WL_SHM_FORMAT_ARGB8888.rawValue].contains(offer.format) else {
            throw .unavailable("the Wayland compositor offers \(outputName) only in a pixel format Podium does not "
                               + "take (wl_shm format 0x\(String(offer.format, radix: 16)))")
        }
        if buffers?.offer != offer {
            guard let sharedMemory = display.sharedMemory else { return }
            if let buffers, latest != nil {
                logger.notice("\(outputName) is now \(offer.size) (was \(buffers.offer.size)); capturing that")
            }
            buffers = try SharedBuffers(offer: offer, count: bufferCount, sharedMemory: sharedMemory)
        }
        // Every buffer in use: the copy waits for one to come back.
        guard let buffers, let buffer = buffers.pool.acquire() else { return }
        request.copy(into: buffer, as: buffers.wayland[buffer.index], withDamage: tracksDamage)
        display.flush()
    }

    /// Turns a picture the compositor gave bottom row first the right way up, in place.
    private func flip(_ frame: CapturedFrame) {
        let rowBytes = frame.bytesPerRow
        if spareRow.count < rowBytes { spareRow = [UInt8](repeating: 0, count: rowBytes) }
        spareRow.withUnsafeMutableBytes { spare in
            guard let row = spare.baseAddress else { return }
            swapRows(of: frame, through: row)
        }
    }

    private func swapRows(of frame: CapturedFrame, through row: UnsafeMutableRawPointer) {
        let rowBytes = frame.bytesPerRow
        for top in 0..<frame.size.height / 2 {
            let upper = frame.buffer.bytes + top * rowBytes
            let lower = frame.buffer.bytes + (frame.size.height - 1 - top) * rowBytes
            row.copyMemory(from: upper, byteCount: rowBytes)
            upper.copyMemory(from: lower, byteCount: rowBytes)
            lower.copyMemory(from: row, byteCount: rowBytes)
        }
    }

    private func wait(_ reason: String) -> CaptureOutcome {
        if missing != reason { logger.notice("\(reason)") }
        missing = reason
        return .waiting
    }
}
