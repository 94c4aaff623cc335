/// One sound encoder: takes the run's mixed sound, one unbroken track from the timeline's start,
/// and hands out packets stamped with their place on it (samples since the run's first slot).
/// libavcodec behind it, or a fake.
///
/// Made on the sound stage's thread and used there alone.
public protocol SoundEncoding: AnyObject, SendableMetatype {
    /// What it produces, for the outputs (its id is the stream id it was opened with).
    var stream: StreamDescription { get }
    /// A line for the start message: `aac with aac (48 kHz stereo, 128k)`.
    var summary: String { get }
    /// Encodes `samples` (interleaved, `SoundFormat`), which continue those it was given before.
    func encode(_ samples: UnsafeBufferPointer<Float>, emit: (EncodedPacket) -> Void) throws(PodiumError)
    /// Ends the stream and hands out the packets it still held.
    func flush(emit: (EncodedPacket) -> Void) throws(PodiumError)
}
