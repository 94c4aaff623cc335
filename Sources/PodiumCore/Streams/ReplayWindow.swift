import DequeModule

/// The last stretch of a run's encoded streams, as `--replay 2m` keeps it: every packet of the
/// picture and its sound, from the picture's keyframe at or before the stretch's start, so that a
/// save starts on a keyframe and holds at least what was asked. Older groups of pictures (a
/// keyframe and what follows it) go as a whole, as soon as the next group starts early enough.
///
/// What holds the bytes is the keeper's (`Stored`): the packet itself while it fits in memory,
/// where it was spilled to once memory is full. The window says which to spill next, oldest first,
/// so the spilled packets are always the oldest ones.
///
/// Pure bookkeeping, on the keeper's own thread: times in microseconds of the run's clock.
public struct ReplayWindow<Stored> {
    /// One packet kept, and where its bytes are.
    public struct Entry {
        public var streamID: Int
        /// In its stream's units, as published.
        public var presentationTime: Int64
        public var duration: Int64
        /// Its presentation time in microseconds.
        public var time: Int64
        public var isKeyframe: Bool
        public var isPicture: Bool
        public var byteCount: Int
        public var stored: Stored

        public init(streamID: Int, presentationTime: Int64, duration: Int64, time: Int64, isKeyframe: Bool,
                    isPicture: Bool, byteCount: Int, stored: Stored) {
            self.streamID = streamID
            self.presentationTime = presentationTime
            self.duration = duration
            self.time = time
            self.isKeyframe = isKeyframe
            self.isPicture = isPicture
            self.byteCount = byteCount
            self.stored = stored
        }

        /// Whether a save may start here.
        var opensGroup: Bool { isPicture && isKeyframe }
    }

    /// How much is kept, in microseconds.
    public let span: Int64
    /// Bytes of packets held in memory before the oldest are spilled.
    public let memoryLimit: Int
    /// Oldest first; the first is a picture's keyframe. A ring: letting go of the oldest moves
    /// nothing (a 2 h replay keeps half a million).
    private var entries = Deque<Entry>()
    /// How many of the first entries are spilled.
    public private(set) var spilledCount = 0
    public private(set) var memoryBytes = 0
    public private(set) var spilledBytes = 0
    /// The newest picture's time.
    private var newest: Int64?

    /// - Parameters:
    ///   - span: what a save holds at most, in microseconds.
    ///   - memoryLimit: bytes held in memory before the oldest are spilled.
    public init(span: Int64, memoryLimit: Int) {
        self.span = span
        self.memoryLimit = memoryLimit
    }

    /// How many packets are kept.
    public var count: Int { entries.count }

    /// Packet `index` from the oldest kept.
    public subscript(index: Int) -> Entry { entries[index] }

    /// From the first keyframe to the newest picture, in microseconds: what a save can hold.
    public var heldSpan: Int64 {
        guard let first = entries.first?.time, let newest else { return 0 }
        return max(0, newest - first)
    }

    /// Keeps `entry`, and lets go of the groups of pictures that fell out of the span.
    /// - Returns: how many entries went, oldest first (the keeper lets go of what held them).
    @discardableResult
    public mutating func append(_ entry: Entry) -> Int {
        // Nothing is kept before the first keyframe: a save could not start there.
        guard !entries.isEmpty || entry.opensGroup else { return 0 }
        entries.append(entry)
        memoryBytes += entry.byteCount
        guard entry.isPicture else { return 0 }
        newest = max(newest ?? entry.time, entry.time)
        guard let newest else { return 0 }
        // The latest group that starts at or before the span's start begins what is kept.
        var keep = 0
        for index in entries.indices.dropFirst() where entries[index].opensGroup {
            guard entries[index].time <= newest - span else { break }
            keep = index
        }
        return dropFirst(keep)
    }

    /// The oldest entry still in memory while memory holds more than its limit: the next to spill.
    public var nextToSpill: Int? {
        memoryBytes > memoryLimit && spilledCount < entries.count ? spilledCount : nil
    }

    /// Entry `index` (`nextToSpill`) was spilled: its bytes are held by `stored` now.
    public mutating func spilled(_ index: Int, as stored: Stored) {
        guard index == spilledCount, entries.indices.contains(index) else { return }
        entries[index].stored = stored
        spilledCount += 1
        memoryBytes -= entries[index].byteCount
        spilledBytes += entries[index].byteCount
    }

    /// Lets go of the oldest group of pictures, but never the newest: what is done when nothing
    /// more can be spilled (a full disk). - Returns: how many entries went.
    @discardableResult
    public mutating func dropOldestGroup() -> Int {
        let next = entries.indices.dropFirst().first { entries[$0].opensGroup }
        return next.map { dropFirst($0) } ?? 0
    }

    /// The entries a save of the last `microseconds` writes (all of them for `nil`): from the
    /// latest keyframe at or before that much before the newest picture, or from the first.
    public func saved(last microseconds: Int64?) -> [Entry] {
        guard let microseconds, let newest else { return Array(entries) }
        var start = 0
        for index in entries.indices where entries[index].opensGroup {
            guard entries[index].time <= newest - microseconds else { break }
            start = index
        }
        return Array(entries[start...])
    }

    private mutating func dropFirst(_ count: Int) -> Int {
        guard count > 0 else { return 0 }
        for entry in entries[..<count] {
            if spilledCount > 0 {
                spilledCount -= 1
                spilledBytes -= entry.byteCount
            } else {
                memoryBytes -= entry.byteCount
            }
        }
        entries.removeFirst(count)
        return count
    }
}

extension ReplayWindow.Entry: Sendable where Stored: Sendable {}
extension ReplayWindow: Sendable where Stored: Sendable {}
