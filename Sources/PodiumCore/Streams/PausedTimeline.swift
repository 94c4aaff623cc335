/// A recording's timeline with its pauses cut out: while paused, every packet is held back; on
/// resume, nothing is written until a picture's keyframe (which the recording asks for), and from
/// it on every time is moved back by what the pause lasted, so that the keyframe takes the place
/// of the first packet held back and a player sees one continuous recording.
///
/// Sound runs a little ahead of the pictures as the encoders hand them on: after a resume, sound
/// that would go before the keyframe, or before sound already written, is left out (a few
/// milliseconds), so that each stream's times only go forward.
///
/// Pure bookkeeping, on the recording's own thread: times in microseconds of the run's clock.
public struct PausedTimeline: Sendable, Equatable {
    /// What has been cut out so far: subtract it from a packet's time to place it in the file.
    public private(set) var cut: Int64 = 0
    /// The earliest time held back by the pause going on (or over, awaiting a keyframe).
    private var pausedAt: Int64?
    /// Where the last sound was placed, and where the next may go at the earliest.
    private var lastSound: Int64 = .min
    private var soundFloor: Int64 = .min

    public init() {}

    /// Whether the recording has been resumed but waits for a keyframe to write from.
    public var awaitsKeyframe: Bool { pausedAt != nil }

    /// Takes one packet: whether to write it (at `time - cut`).
    /// - Parameters:
    ///   - time: its presentation time, in microseconds.
    ///   - picture: it is a picture (else sound); `keyframe`: one a recording may start from.
    ///   - paused: the recording is paused now.
    public mutating func admits(time: Int64, picture: Bool, keyframe: Bool, paused: Bool) -> Bool {
        if paused {
            pausedAt = min(pausedAt ?? time, time)
            return false
        }
        if let pausedAt {
            guard picture && keyframe else { return false }
            cut += max(0, time - pausedAt)
            soundFloor = max(lastSound &+ 1, time - cut)
            self.pausedAt = nil
        }
        guard !picture else { return true }
        let placed = time - cut
        guard placed >= soundFloor else { return false }
        lastSound = placed
        return true
    }
}
