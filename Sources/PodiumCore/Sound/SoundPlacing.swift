/// Puts one source's sound on the run's sound timeline: each block arrives with the place its
/// capture time gives it, and what comes out is one unbroken track from the timeline's start. A
/// small difference between the two (the sound card's clock drifting from the monotonic one) is
/// corrected by resampling, a large one (a gap) by silence or trimming. libswresample behind it,
/// or a fake.
///
/// Made on the sound stage's thread and used there alone.
public protocol SoundPlacing: AnyObject, SendableMetatype {
    /// Places `samples` (interleaved, `SoundFormat`), whose first belongs at `position` (samples
    /// since the run's first slot), and hands out what continues the track, in order.
    func place(_ samples: UnsafeBufferPointer<Float>, at position: Int64,
               emit: (UnsafeBufferPointer<Float>) -> Void) throws(PodiumError)
    /// Hands out what it still holds (a resampler's filter delay); nothing is placed after it.
    func flush(emit: (UnsafeBufferPointer<Float>) -> Void) throws(PodiumError)
    /// How far the track handed out so far lies from where the last block's place put it, in
    /// samples: positive when the sound comes later than it was heard, negative earlier. What
    /// the resampler has yet to correct.
    var offset: Int64 { get }
}
