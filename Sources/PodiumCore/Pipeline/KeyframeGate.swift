/// The drop policy for an encoded stream: once a packet is lost, every packet up to the next
/// keyframe would decode to garbage, so they are dropped too and the stream resumes on a keyframe.
public struct KeyframeGate: Sendable {
    private var waitingForKeyframe: Bool

    /// - Parameter waitingForKeyframe: start by dropping up to the first keyframe (a sink that joins late).
    public init(waitingForKeyframe: Bool = false) {
        self.waitingForKeyframe = waitingForKeyframe
    }

    /// Offers one packet through `push`, which reports whether the queue took it.
    /// - Returns: whether the packet was passed on.
    public mutating func pass(isKeyframe: Bool, push: () -> Bool) -> Bool {
        if waitingForKeyframe && !isKeyframe { return false }
        waitingForKeyframe = !push()
        return !waitingForKeyframe
    }
}
