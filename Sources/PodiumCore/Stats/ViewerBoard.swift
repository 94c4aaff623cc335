import Synchronization

/// What the browser viewers report, and what the server did for each: written by the viewer
/// server as reports come in, read by the stats reporter. Thread-safe.
public final class ViewerBoard: Sendable {
    /// Every painted frame's glass-to-glass latency (capture to paint), of every viewer.
    public let latency = StageTimer("viewer latency")
    private struct State {
        var watching: [Int: StatsSample.Viewer] = [:]
        var nextID = 1
        var joined = 0
        var most = 0
    }
    private let state = Mutex(State())

    public init() {}

    /// Enters a viewer that joined; returns its number.
    public func join(address: String, rendition: String) -> Int {
        state.withLock { state in
            defer { state.nextID += 1 }
            state.watching[state.nextID] = StatsSample.Viewer(id: state.nextID, address: address, rendition: rendition)
            state.joined += 1
            state.most = max(state.most, state.watching.count)
            return state.nextID
        }
    }

    /// Changes what is known of viewer `id`; nothing when it left.
    public func update(_ id: Int, _ change: (inout StatsSample.Viewer) -> Void) {
        state.withLock { state in
            guard var viewer = state.watching[id] else { return }
            change(&viewer)
            state.watching[id] = viewer
        }
    }

    /// Viewer `id` left.
    public func leave(_ id: Int) {
        _ = state.withLock { $0.watching.removeValue(forKey: id) }
    }

    /// The viewers watching now, by number.
    public var watching: [StatsSample.Viewer] {
        state.withLock { $0.watching.values.sorted { $0.id < $1.id } }
    }

    /// Viewers who joined over the run, and the most at once.
    public var totals: (joined: Int, most: Int) {
        state.withLock { ($0.joined, $0.most) }
    }
}

extension StatsSample {
    /// One browser viewer, as the server saw it and as its page reported (once a second).
    public struct Viewer: Sendable, Codable, Equatable {
        public var id: Int
        /// Where it connects from.
        public var address: String
        /// The rendition it watches, such as `720p`.
        public var rendition: String
        /// How the page decodes: `webcodecs` or `mse`; empty until its first report.
        public var decoder = ""
        /// Frames the server sent it, and frames it skipped because the viewer fell behind.
        public var sent = 0
        public var skipped = 0
        /// Frames its page decoded, and frames it decoded but never painted (a newer one came first).
        public var decoded = 0
        public var dropped = 0
        /// Its last second: milliseconds to decode a frame, and from capture to paint.
        public var decodeMilliseconds = 0.0
        public var latency = StageTimes.empty
        /// Its sound: `none` (the run has none), `unsupported` (the browser cannot play its codec),
        /// `suspended` (waiting for a click, as browsers require), `running`; empty until its first report.
        public var sound = ""
        /// Sound packets its page decoded.
        public var soundDecoded = 0
        /// Its last second: from capture to the place each sound packet was put on the page's
        /// sound timeline, in milliseconds.
        public var soundLatency = StageTimes.empty

        public init(id: Int, address: String, rendition: String) {
            self.id = id
            self.address = address
            self.rendition = rendition
        }
    }

    /// The browser viewers, when the run serves them.
    public struct Viewers: Sendable, Codable, Equatable {
        /// Watching at the end of the interval.
        public var watching: [Viewer]
        /// Capture to paint, every painted frame of every viewer, over the interval (or the run).
        public var latency: StageTimes
        /// Over the run: viewers who joined, and the most at once.
        public var joined: Int
        public var most: Int
    }
}
