/// When the encoder is asked for a keyframe: at the keyframe interval by capture time, not by
/// frame count (with damage tracking an idle screen sends a frame a second), and at once when an
/// output joins and asks for one. A keyframe the encoder chose itself (a scene cut) restarts the
/// interval.
///
/// On a grid (`onGrid`), the scheduled keyframes are the first frames at or past each multiple of
/// the interval after the first frame, whatever other keyframes came between: several encoders
/// then make their keyframes of the same frames, and an HLS muxer, which cuts a segment at the
/// first keyframe past each multiple of its length, cuts them all at the same frames.
///
/// Not thread-safe: confine to the encode thread.
public struct KeyframeSchedule: Sendable {
    private let interval: UInt64
    private let onGrid: Bool
    private var lastKeyframe: UInt64?
    /// On a grid: the first frame's time, and the multiple of the interval due next.
    private var origin: UInt64 = 0
    private var due: UInt64 = 1

    public init(interval: Duration, onGrid: Bool = false) {
        self.interval = UInt64(max(interval.nanoseconds, 1))
        self.onGrid = onGrid
    }

    /// Whether the frame grabbed at `time` should be a keyframe.
    /// - Parameter requested: an output joined since the last frame.
    public func wantsKeyframe(at time: UInt64, requested: Bool) -> Bool {
        guard let lastKeyframe else { return true }
        if onGrid { return requested || time >= origin + due * interval }
        return requested || time >= lastKeyframe + interval
    }

    /// The frame grabbed at `time` was encoded, as a keyframe or not.
    public mutating func encoded(at time: UInt64, keyframe: Bool) {
        if lastKeyframe == nil { origin = time }
        if keyframe || lastKeyframe == nil { lastKeyframe = time }
        // Past the multiple due (a keyframe was made of this frame): the next multiple after it.
        if onGrid && time >= origin + due * interval { due = (time - origin) / interval + 1 }
    }
}
