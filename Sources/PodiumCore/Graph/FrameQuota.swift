import Synchronization

/// `--frames N`, counted in one place: the stage whose frames are the run's (the encode stage,
/// or the fan-out when nothing is encoded) takes one of the quota for each frame it uses, through
/// `Run.takeFrame()`, and the run stops when the last is taken.
public final class FrameQuota: Sendable {
    private let left: Atomic<Int>

    public init(frames: Int) {
        left = Atomic(frames)
    }

    /// What taking one frame of the quota gave.
    public enum Taken: Sendable {
        /// The frame is the run's.
        case granted
        /// The frame is the run's, and the last one.
        case last
        /// None is left: the frame is not to be used.
        case refused
    }

    public func take() -> Taken {
        let remaining = left.subtract(1, ordering: .relaxed).newValue
        return remaining > 0 ? .granted : remaining == 0 ? .last : .refused
    }
}
