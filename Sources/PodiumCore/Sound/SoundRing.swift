import Foundation

/// The hand-off between the sound sources' threads and their encoder's: a ring of blocks of fixed
/// size, made once, so neither side allocates. A source never waits: when the encoder has fallen a
/// whole ring behind, the new block is refused and counted. The encoder waits for blocks.
///
/// Thread-safe: writers (the sources, each block marked with its source) and one reader (the
/// encoder); the samples are copied in and out under the lock, a few kilobytes each.
public final class SoundRing: Sendable {
    /// The most samples of each channel a block holds.
    public let blockFrames: Int
    public let capacity: Int
    private let state: ConditionLock<State>

    private struct State: Sendable {
        var samples: [Float]
        var frames: [Int]
        var sources: [Int]
        var times: [UInt64]
        var head = 0
        var count = 0
        var closed = false
    }

    /// What `take` got.
    public enum Taken: Sendable, Equatable {
        /// A block of `frames` samples a channel from the source numbered `source`, the first heard
        /// at `captureTime`.
        case block(source: Int, frames: Int, captureTime: UInt64)
        /// None came in time.
        case timedOut
        /// The ring is closed and empty.
        case closed
    }

    /// - Parameters:
    ///   - blockFrames: the most samples of each channel a block holds.
    ///   - capacity: how many blocks wait at most.
    public init(blockFrames: Int, capacity: Int) {
        precondition(blockFrames > 0 && capacity > 0, "a sound ring holds at least one sample")
        self.blockFrames = blockFrames
        self.capacity = capacity
        state = ConditionLock(State(samples: Array(repeating: 0, count: blockFrames * SoundFormat.channels * capacity),
                                    frames: Array(repeating: 0, count: capacity),
                                    sources: Array(repeating: 0, count: capacity),
                                    times: Array(repeating: 0, count: capacity)))
    }

    /// Copies `samples` (interleaved, at most `blockFrames` a channel) in as one block of the source
    /// numbered `source`, whose first sample was heard at `captureTime`; never waits.
    /// - Returns: `false` when the ring was full or closed (the block is dropped).
    public func put(_ samples: UnsafeBufferPointer<Float>, source: Int = 0, captureTime: UInt64) -> Bool {
        let frames = min(samples.count / SoundFormat.channels, blockFrames)
        return state.withLock(wake: .one) { state in
            guard !state.closed, state.count < capacity else { return false }
            let slot = (state.head + state.count) % capacity
            let width = blockFrames * SoundFormat.channels
            state.samples.withUnsafeMutableBufferPointer { ring in
                guard let base = ring.baseAddress, let source = samples.baseAddress else { return }
                (base + slot * width).update(from: source, count: frames * SoundFormat.channels)
            }
            state.frames[slot] = frames
            state.sources[slot] = source
            state.times[slot] = captureTime
            state.count += 1
            return true
        }
    }

    /// Waits until a block comes (or `timeout` nanoseconds pass) and copies it into `buffer`,
    /// which holds `blockFrames` samples of each channel.
    public func take(into buffer: UnsafeMutableBufferPointer<Float>, timeout: UInt64) -> Taken {
        let deadline = Date(timeIntervalSinceNow: Double(timeout) / 1e9)
        return state.wait(until: { $0.count > 0 || $0.closed }, deadline: deadline) { state in
            guard state.count > 0 else { return state.closed ? .closed : .timedOut }
            let slot = state.head
            let frames = min(state.frames[slot], buffer.count / SoundFormat.channels)
            let width = blockFrames * SoundFormat.channels
            state.samples.withUnsafeBufferPointer { ring in
                guard let base = ring.baseAddress, let target = buffer.baseAddress else { return }
                target.update(from: base + slot * width, count: frames * SoundFormat.channels)
            }
            state.head = (state.head + 1) % capacity
            state.count -= 1
            return .block(source: state.sources[slot], frames: frames, captureTime: state.times[slot])
        }
    }

    /// Whether no block waits.
    public var isEmpty: Bool { state.withLock { $0.count == 0 } }

    /// No more blocks come: `take` gets what is left, then `.closed`.
    public func close() {
        state.withLock(wake: .all) { $0.closed = true }
    }
}
