/// Two sources composed into one picture by a layout (`--layout beside|over|primary|secondary`),
/// for every stage alike: the mirror window and the encoders get the composed picture.
///
/// Each source is asked for a picture at each slot and grabs only what changed; a hidden one (the
/// other one shown alone) is not asked at all. Only the rows a change reaches are redrawn, and
/// only in the part of the picture that shows the source that changed: a still terminal beside a
/// playing video costs the video's rows. The layout is read at every slot from a `LayoutSwitch`,
/// so a key's change shows in the next frame, as one frame drawn anew (no new encoder).
///
/// A source shown alone, whole, at the picture's size (`primary` with the larger source) is
/// handed through: its own frames go on, with no copy into a picture of the compositor's.
///
/// A source that is gone for now (a camera unplugged, a monitor or window away) leaves the picture
/// to the other one, shown alone, and is looked at each slot until it is back.
///
/// Not thread-safe: made on the capture thread with its sources' grabbers, and used there alone.
public final class ComposedCapture: FrameGrabber {
    /// Makes a scaler from a rectangle of a source to its place in the picture (BGRA to BGRA).
    public typealias MakeScaler = (_ crop: PixelSize, _ output: PixelSize) throws(PodiumError) -> any FrameScaling

    /// The rows to redraw in each pane, in the picture's rows.
    private struct PaneRows {
        var first = RowBands()
        var second = RowBands()

        subscript(pane: Int) -> RowBands {
            get { pane == 0 ? first : second }
            set { if pane == 0 { first = newValue } else { second = newValue } }
        }

        var all: RowBands {
            var rows = first
            rows.formUnion(second)
            return rows
        }

        mutating func formUnion(_ other: PaneRows) {
            first.formUnion(other.first)
            second.formUnion(other.second)
        }
    }

    private var sources: [any FrameGrabber]
    public let canvas: PixelSize
    private let layouts: LayoutSwitch
    private var layout: Layout
    private var layoutVersion: UInt64
    private let makeScaler: MakeScaler
    private let pool: FrameBufferPool
    private let bytesPerRow: Int
    /// Each source's latest frame, held until the next one replaces it.
    private var latest: [CapturedFrame?]
    /// Each source's next frame number.
    private var sourceSequences: [UInt64]
    /// Each source's size: as planned, then its latest frame's.
    private var sizes: [PixelSize]
    /// Sources to be grabbed whole at their next look: never grabbed, or hidden until now.
    private var stale: [Bool]
    /// Sources gone for now (they said they wait): the other one is shown alone meanwhile.
    private var missing: [Bool]
    /// Where each source goes now, bottom first, and the scaler each pane uses.
    private var panes: [Layout.Pane] = []
    private var scalers: [(any FrameScaling)?] = [nil, nil]
    /// What changed since the last frame handed out.
    private var pending = PaneRows()
    /// What each frame handed out lately changed against the one before: a ring, oldest replaced.
    private var history: [(sequence: UInt64, rows: PaneRows)]
    private var historyNext = 0
    /// The frame each output buffer shows, by `FrameBuffer.index`.
    private var shows: [UInt64?]
    /// The source whose own frames are handed on now (it fills the picture alone), if any.
    private var handedThrough: Int?
    /// The source frame handed on last, by its source's sequence: the next one's changed rows
    /// hold against it only when it is that one's predecessor.
    private var lastHanded: (source: Int, sequence: UInt64)?

    /// - Parameters:
    ///   - sources: the primary's grabber, then the secondary's, opened on this thread.
    ///   - sizes: their sizes as planned, to place them before their first frames.
    ///   - canvas: the composed picture's size (even sides).
    ///   - bufferCount: composed frames that may be in flight at once across every stage.
    public init(sources: [any FrameGrabber], sizes: [PixelSize], canvas: PixelSize, layouts: LayoutSwitch,
                bufferCount: Int, makeScaler: @escaping MakeScaler) {
        self.sources = sources
        self.sizes = sizes
        self.canvas = canvas
        self.layouts = layouts
        layoutVersion = layouts.version
        layout = layouts.layout
        self.makeScaler = makeScaler
        bytesPerRow = canvas.width * 4
        let size = bytesPerRow * canvas.height
        pool = FrameBufferPool((0..<bufferCount).map { index in
            let storage = HeapStorage(capacity: size)
            return FrameBuffer(bytes: storage.bytes, capacity: size, index: index, storage: storage)
        })
        latest = Array(repeating: nil, count: sources.count)
        sourceSequences = Array(repeating: 0, count: sources.count)
        stale = Array(repeating: true, count: sources.count)
        missing = Array(repeating: false, count: sources.count)
        history = Array(repeating: (UInt64.max, PaneRows()), count: bufferCount + 1)
        shows = Array(repeating: nil, count: bufferCount)
        placePanes()
    }

    deinit {
        for frame in latest { frame?.buffer.release() }
    }

    /// `1920x1080+0+0 of :0 with MIT-SHM and 800x600+0+0 of :2 with MIT-SHM, beside 60%, into 1920x1080`.
    public var description: String {
        sources.map(\.description).joined(separator: " and ") + ", \(layout), into \(canvas)"
    }

    /// The pointer of the topmost source that says where it is over its pane, moved to where the
    /// pane shows it.
    public var pointer: PointerReport? {
        if let source = handedThrough { return sources[source].pointer }
        for pane in panes.reversed() {
            guard var report = sources[pane.source].pointer else { continue }
            let (from, to) = (pane.placement.source, pane.placement.destination)
            guard from.width > 0, from.height > 0, (from.x..<from.maxX).contains(report.x),
                  (from.y..<from.maxY).contains(report.y) else { continue }
            report.x = to.x + (report.x - from.x) * to.width / from.width
            report.y = to.y + (report.y - from.y) * to.height / from.height
            return report
        }
        return nil
    }

    public func capture(sequence: UInt64, time: UInt64, slotTime: UInt64, evenIfUnchanged: Bool)
        throws(PodiumError) -> CaptureOutcome {
        let version = layouts.version
        if version != layoutVersion {
            layoutVersion = version
            layout = layouts.layout
            placePanes()
        }
        // A source gone is looked at each slot, shown or not, so that it shows again once back.
        var gone = 0
        while gone < sources.count {
            if missing[gone] { _ = try look(at: gone, time: time, slotTime: slotTime) }
            gone += 1
        }
        if let source = handedThrough { return try handThrough(source, sequence: sequence, time: time,
                                                               slotTime: slotTime, evenIfUnchanged: evenIfUnchanged) }
        var repainted = false
        var index = 0
        while index < sources.count {
            if shown(index) && !missing[index] {
                switch try look(at: index, time: time, slotTime: slotTime) {
                case .repainted: repainted = true
                case .ended: return .ended
                default: break
                }
            } else {
                stale[index] = true
            }
            index += 1
        }
        let changed = !pending.first.isEmpty || !pending.second.isEmpty
        guard changed || evenIfUnchanged else { return repainted ? .repainted : .unchanged }
        guard let buffer = pool.acquire() else { return .busy }
        var redraw = rows(since: shows[buffer.index], upTo: sequence)
        redraw.formUnion(pending)
        draw(redraw, into: buffer)
        shows[buffer.index] = sequence
        history[historyNext] = (sequence, pending)
        historyNext = (historyNext + 1) % history.count
        let frame = CapturedFrame(buffer: buffer, size: canvas, bytesPerRow: bytesPerRow, captureTime: time,
                                  slotTime: slotTime, sequence: sequence, changedRows: pending.all)
        pending = PaneRows()
        // Panes placed for a hand-through this slot: this picture is that source's latest frame.
        if let source = handedThrough, latest[source] != nil { lastHanded = (source, sourceSequences[source] &- 1) }
        return .frame(frame)
    }

    /// The frame of `source`, alone at the picture's size, as it is: no copy.
    private func handThrough(_ source: Int, sequence: UInt64, time: UInt64, slotTime: UInt64,
                             evenIfUnchanged: Bool) throws(PodiumError) -> CaptureOutcome {
        var other = 0
        while other < sources.count {
            if other != source && !missing[other] { stale[other] = true }
            other += 1
        }
        let outcome = try look(at: source, time: time, slotTime: slotTime)
        if case .ended = outcome { return .ended }
        guard let frame = latest[source], sizes[source] == canvas, handedThrough == source else {
            // Its size changed, and with it the panes: composed from the next slot.
            return .unchanged
        }
        let fresh = sourceSequences[source] &- 1
        let continues = lastHanded.map { $0.source == source && $0.sequence &+ 1 == fresh } ?? false
        let repeated = lastHanded.map { $0.source == source && $0.sequence == fresh } ?? false
        guard !repeated || evenIfUnchanged else {
            if case .repainted = outcome { return .repainted }
            return .unchanged
        }
        let changed: RowBands? = repeated ? RowBands() : continues ? frame.changedRows : nil
        lastHanded = (source, fresh)
        pending = PaneRows()
        return .frame(CapturedFrame(buffer: frame.buffer, size: frame.size, bytesPerRow: frame.bytesPerRow,
                                    captureTime: time, slotTime: slotTime, sequence: sequence,
                                    changedRows: changed))
    }

    /// Whether source `index` is in the picture now.
    private func shown(_ index: Int) -> Bool {
        var pane = 0
        while pane < panes.count {
            if panes[pane].source == index { return true }
            pane += 1
        }
        return false
    }

    /// Asks source `index` for what changed, and marks where that lands in the picture.
    /// - Returns: what the source said: its frame is taken in, so this is what the run must know
    ///   (`repainted`, `ended` when a source is gone for good and ends the run).
    private func look(at index: Int, time: UInt64, slotTime: UInt64) throws(PodiumError) -> CaptureOutcome {
        let outcome = try sources[index].capture(sequence: sourceSequences[index], time: time, slotTime: slotTime,
                                                 evenIfUnchanged: stale[index])
        switch outcome {
        case .frame(let frame):
            frame.buffer.share(with: 1)
            let previous = latest[index]
            latest[index] = frame
            previous?.buffer.release()
            sourceSequences[index] += 1
            // A new size moves the panes (drawn whole then); a source shown again is drawn whole.
            if frame.size != sizes[index] {
                sizes[index] = frame.size
                placePanes()
            }
            if missing[index] {
                // Back: the layout as it was, drawn whole.
                missing[index] = false
                stale[index] = false
                placePanes()
            } else if stale[index] {
                stale[index] = false
                markWhole(source: index)
            } else {
                markChanged(source: index, rows: frame.changedRows)
            }
            return .unchanged
        case .waiting where !missing[index] && sources.count > 1:
            missing[index] = true
            placePanes()
            return outcome
        case .repainted, .unchanged, .busy, .waiting, .ended:
            return outcome
        }
    }

    /// Places the sources for the layout and their sizes now; a pane that moved is drawn whole.
    private func placePanes() {
        var shownLayout = layout
        // One source gone: the other alone (`primary` shows the second source when swapped).
        if sources.count == 2, missing[0] != missing[1] {
            let present = missing[0] ? 1 : 0
            shownLayout.mode = (present == 0) != layout.swapped ? .primary : .secondary
        }
        let placed = shownLayout.panes(canvas: canvas, sizes: sizes)
        guard placed != panes else { return }
        panes = placed
        handedThrough = nil
        if placed.count == 1, let pane = placed.first, !pane.bordered, sizes[pane.source] == canvas,
           pane.placement.source == PixelRect(x: 0, y: 0, size: canvas),
           pane.placement.destination == PixelRect(x: 0, y: 0, size: canvas) {
            handedThrough = pane.source
        }
        lastHanded = nil
        scalers = [nil, nil]
        // Every buffer is drawn anew: what they hold was placed otherwise.
        forgetHistory()
        var index = 0
        while index < panes.count {
            pending[index] = RowBands(rowsOf(panes[index]))
            index += 1
        }
    }

    private func markWhole(source: Int) {
        var index = 0
        while index < panes.count {
            if panes[index].source == source { pending[index].insert(rowsOf(panes[index])) }
            index += 1
        }
    }

    /// Marks the picture's rows that `rows` of source `source` reach (all of its pane's when not known).
    private func markChanged(source: Int, rows: RowBands?) {
        var index = 0
        while index < panes.count {
            let pane = panes[index]
            if pane.source == source {
                if let rows {
                    let placement = pane.placement
                    let scaled = rows.scaled(from: placement.source.y..<placement.source.maxY,
                                             toHeight: placement.destination.height)
                    pending[index].formUnion(scaled.offset(by: placement.destination.y))
                } else {
                    pending[index].insert(rowsOf(pane))
                }
            }
            index += 1
        }
    }

    /// The rows a pane covers, its border included.
    private func rowsOf(_ pane: Layout.Pane) -> Range<Int> {
        let bounds = bounds(of: pane)
        return max(0, bounds.y)..<min(canvas.height, bounds.maxY)
    }

    /// Draws `rows` of each pane into `buffer`, bottom first; a pane over another is drawn again
    /// where the one below it was.
    private func draw(_ rows: PaneRows, into buffer: FrameBuffer) {
        var drawn = rows
        var index = 0
        while index < panes.count {
            let covered = rowsOf(panes[index])
            var lower = 0
            while lower < index {
                if bounds(of: panes[lower]).intersects(bounds(of: panes[index])) {
                    var band = 0
                    while band < drawn[lower].count {
                        drawn[index].insert(drawn[lower][band].clamped(to: covered))
                        band += 1
                    }
                }
                lower += 1
            }
            draw(pane: index, rows: drawn[index], into: buffer)
            index += 1
        }
    }

    /// The pane's area with its border.
    private func bounds(of pane: Layout.Pane) -> PixelRect {
        let border = pane.bordered ? Layout.borderWidth : 0
        return PixelRect(x: pane.area.x - border, y: pane.area.y - border,
                         width: pane.area.width + 2 * border, height: pane.area.height + 2 * border)
    }

    private func draw(pane index: Int, rows: RowBands, into buffer: FrameBuffer) {
        guard !rows.isEmpty else { return }
        let pane = panes[index]
        let destination = pane.placement.destination
        let frame = latest[pane.source]
        let pixels = buffer.bytes
        var band = 0
        while band < rows.count {
            let wanted = rows[band]
            // The pane's background where its picture does not reach, then its border.
            let areaRows = wanted.clamped(to: pane.area.y..<pane.area.maxY)
            var row = areaRows.lowerBound
            while row < areaRows.upperBound {
                if frame == nil || row < destination.y || row >= destination.maxY {
                    fill(pixels, row: row, from: pane.area.x, to: pane.area.maxX, color: layout.background)
                } else {
                    fill(pixels, row: row, from: pane.area.x, to: destination.x, color: layout.background)
                    fill(pixels, row: row, from: destination.maxX, to: pane.area.maxX, color: layout.background)
                }
                row += 1
            }
            if pane.bordered { drawBorder(around: pane.area, rows: wanted, into: pixels) }
            band += 1
        }
        guard let frame, let scaler = scaler(for: index) else { return }
        let target = pixels + destination.y * bytesPerRow + destination.x * 4
        if scaler.scalesRows {
            scaler.scale(frame, from: pane.placement.source, rows: rows.offset(by: -destination.y),
                         into: target, bytesPerRow: bytesPerRow)
        } else {
            scaler.scale(frame, from: pane.placement.source, into: target, bytesPerRow: bytesPerRow)
        }
    }

    /// The scaler of pane `index`, made for its place; `nil` when it cannot be made (the pane
    /// then shows its background).
    private func scaler(for index: Int) -> (any FrameScaling)? {
        let placement = panes[index].placement
        if let scaler = scalers[index], scaler.crop == placement.source.size,
           scaler.output == placement.destination.size {
            return scaler
        }
        scalers[index] = try? makeScaler(placement.source.size, placement.destination.size)
        return scalers[index]
    }

    private func drawBorder(around area: PixelRect, rows: Range<Int>, into pixels: UnsafeMutableRawPointer) {
        let width = Layout.borderWidth
        let color = Layout.borderColor
        let outer = (area.y - width)..<(area.maxY + width)
        var row = max(rows.lowerBound, outer.lowerBound, 0)
        while row < min(rows.upperBound, outer.upperBound, canvas.height) {
            if row < area.y || row >= area.maxY {
                fill(pixels, row: row, from: area.x - width, to: area.maxX + width, color: color)
            } else {
                fill(pixels, row: row, from: area.x - width, to: area.x, color: color)
                fill(pixels, row: row, from: area.maxX, to: area.maxX + width, color: color)
            }
            row += 1
        }
    }

    /// Paints columns `from..<to` of `row` in `color` (BGRA in memory, opaque).
    private func fill(_ pixels: UnsafeMutableRawPointer, row: Int, from left: Int, to right: Int, color: RGBColor) {
        let start = max(0, left)
        let end = min(canvas.width, right)
        guard start < end, row >= 0, row < canvas.height else { return }
        (pixels + row * bytesPerRow + start * 4).assumingMemoryBound(to: UInt32.self)
            .update(repeating: color.pixel, count: end - start)
    }

    private func forgetHistory() {
        var index = 0
        while index < history.count {
            history[index] = (UInt64.max, PaneRows())
            index += 1
        }
    }

    /// What changed after frame `held` up to the frame before `target`: what a buffer showing
    /// `held` needs redrawn, besides `pending`. Every pane whole when not known.
    private func rows(since held: UInt64?, upTo target: UInt64) -> PaneRows {
        var rows = PaneRows()
        if let held, held < target, target - held <= UInt64(history.count) {
            var sequence = held + 1
            var known = true
            while known && sequence < target {
                var index = 0
                while index < history.count && history[index].sequence != sequence { index += 1 }
                if index < history.count { rows.formUnion(history[index].rows) } else { known = false }
                sequence += 1
            }
            if known { return rows }
        }
        var index = 0
        while index < panes.count {
            rows[index] = RowBands(rowsOf(panes[index]))
            index += 1
        }
        return rows
    }
}
