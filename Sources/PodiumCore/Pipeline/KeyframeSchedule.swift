/// When the encoder is asked for a keyframe: at the keyframe interval by capture time, not by
/// frame count (with damage tracking an idle screen sends a frame a second), and at once when an
/// output joins and asks for one. A keyframe the encoder chose itself (a scene cut) restarts the
/// interval.
///
/// Not thread-safe: confine to the encode thread.
public struct KeyframeSchedule: Sendable {
    private let interval: UInt64
    private var lastKeyframe: UInt64?

    public init(interval: Duration) {
        self.interval = UInt64(max(interval.nanoseconds, 1))
    }

    /// Whether the frame grabbed at `time` should be a keyframe.
    /// - Parameter requested: an output joined since the last frame.
    public func wantsKeyframe(at time: UInt64, requested: Bool) -> Bool {
        guard let lastKeyframe else { return true }
        return requested || time >= lastKeyframe + interval
    }

    /// The frame grabbed at `time` was encoded, as a keyframe or not.
    public mutating func encoded(at time: UInt64, keyframe: Bool) {
        if keyframe || lastKeyframe == nil { lastKeyframe = time }
    }
}
