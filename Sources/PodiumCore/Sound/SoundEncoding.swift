/// One sound encoder: takes blocks of samples placed on the run's sound timeline and hands out
/// packets. It keeps its output in step with the places it is given: a small difference (the
/// sound card's clock drifting from the monotonic one) is corrected by resampling, a large one
/// (a gap) by silence or trimming. libavcodec and libswresample behind it, or a fake.
///
/// Made on the sound stage's thread and used there alone.
public protocol SoundEncoding: AnyObject, SendableMetatype {
    /// What it produces, for the outputs (its id is the stream id it was opened with).
    var stream: StreamDescription { get }
    /// A line for the start message: `aac with aac (48 kHz stereo, 128k)`.
    var summary: String { get }
    /// Encodes `samples` (interleaved, `SoundFormat`), whose first belongs at `position` (samples
    /// since the run's first slot, negative before it).
    func encode(_ samples: UnsafeBufferPointer<Float>, at position: Int64, emit: (EncodedPacket) -> Void)
        throws(PodiumError)
    /// Ends the stream and hands out the packets it still held.
    func flush(emit: (EncodedPacket) -> Void) throws(PodiumError)
}
