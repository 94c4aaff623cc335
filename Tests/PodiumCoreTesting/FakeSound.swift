import Foundation
public import PodiumCore
import Synchronization

/// A sound source the test drives: each `deliver` hands the run a block of samples heard at the
/// time given (on the run's clock), from the source's thread; `interrupt` says the server went
/// away. It runs until the run stops.
public final class FakeSoundSource: SoundSource {
    private enum Command: Sendable {
        case block(frames: Int, value: Float, heardAt: UInt64)
        case interrupt
    }

    private let failure: PodiumError?
    private let commands = ConditionLock<[Command]>([])
    private let handedOn = Atomic<Int>(0)

    /// Blocks handed on.
    public var delivered: Int { handedOn.load(ordering: .relaxed) }

    /// - Parameter failsToOpen: the error opening it gives (no sound server).
    public init(failsToOpen: PodiumError? = nil) {
        failure = failsToOpen
    }

    /// Delivers `frames` samples a channel, each `value`, the first heard at `heardAt`.
    public func deliver(frames: Int, value: Float = 0.5, heardAt: UInt64) {
        commands.withLock(wake: .all) { $0.append(.block(frames: frames, value: value, heardAt: heardAt)) }
    }

    /// The server went away.
    public func interrupt() {
        commands.withLock(wake: .all) { $0.append(.interrupt) }
    }

    public func run(into feed: SoundFeed) {
        if let failure { return feed.failedToOpen(failure) }
        feed.opened("a fake sound source")
        guard feed.waitForStart() else { return }
        while !feed.isStopping {
            let command = commands.wait(until: { !$0.isEmpty }, deadline: Date(timeIntervalSinceNow: 0.01)) {
                pending -> Command? in
                pending.isEmpty ? nil : pending.removeFirst()
            }
            switch command {
            case nil: continue
            case .block(let frames, let value, let heardAt):
                let samples = [Float](repeating: value, count: frames * SoundFormat.channels)
                samples.withUnsafeBufferPointer { feed.deliver($0, heardAt: heardAt) }
                handedOn.add(1, ordering: .relaxed)
            case .interrupt:
                feed.interrupted()
            }
        }
    }
}

/// A placer that resamples nothing: a block later than the track's end follows silence, one that
/// overlaps it loses its first samples; the track is always where the places put it.
public final class FakeSoundPlacer: SoundPlacing {
    private var end: Int64 = 0
    private var silence: [Float] = []

    public init() {}

    public var offset: Int64 { 0 }

    public func place(_ samples: UnsafeBufferPointer<Float>, at position: Int64,
                      emit: (UnsafeBufferPointer<Float>) -> Void) throws(PodiumError) {
        let channels = SoundFormat.channels
        let frames = samples.count / channels
        if position > end {
            silence = Array(repeating: 0, count: Int(position - end) * channels)
            silence.withUnsafeBufferPointer(emit)
            end = position
        }
        let skipped = Int(min(Int64(frames), end - position))
        guard skipped < frames else { return }
        emit(UnsafeBufferPointer(rebasing: samples[skipped * channels..<frames * channels]))
        end += Int64(frames - skipped)
    }

    public func flush(emit: (UnsafeBufferPointer<Float>) -> Void) throws(PodiumError) {}
}

/// What a fake sound encoder was given: each block's place and length, and whether it was silent.
public final class SoundLog: Sendable {
    public struct Block: Sendable, Equatable {
        public var position: Int64
        public var frames: Int
        public var silent: Bool

        public init(position: Int64, frames: Int, silent: Bool) {
            self.position = position
            self.frames = frames
            self.silent = silent
        }
    }

    /// A stretch of the track whose samples all have one value.
    public struct Stretch: Sendable, Equatable, CustomStringConvertible {
        public var range: Range<Int64>
        public var value: Float

        public init(_ range: Range<Int64>, _ value: Float) {
            self.range = range
            self.value = value
        }

        public var description: String { "\(range.lowerBound)..<\(range.upperBound): \(value)" }
    }

    private let blocks = Mutex<[Block]>([])
    private let stretches = Mutex<[Stretch]>([])
    /// While closed, the encoder waits before each block: an encoder as slow as the test likes.
    private let gate = ConditionLock(true)

    public init() {}

    public var taken: [Block] { blocks.withLock { $0 } }
    /// Up to where the blocks reach.
    public var end: Int64 { taken.map { $0.position + Int64($0.frames) }.max() ?? 0 }

    /// The track as the encoder got it, in stretches of one value (the left channel's).
    public var track: [Stretch] { stretches.withLock { $0 } }

    func record(_ block: Block, samples: UnsafeBufferPointer<Float>) {
        blocks.withLock { $0.append(block) }
        stretches.withLock { stretches in
            var position = block.position
            for index in stride(from: 0, to: samples.count, by: SoundFormat.channels) {
                let value = samples[index]
                if let last = stretches.last, last.value == value, last.range.upperBound == position {
                    stretches[stretches.count - 1].range = last.range.lowerBound..<position + 1
                } else {
                    stretches.append(Stretch(position..<position + 1, value))
                }
                position += 1
            }
        }
    }

    public func close() { gate.withLock(wake: .all) { $0 = false } }
    public func open() { gate.withLock(wake: .all) { $0 = true } }
    func waitUntilOpen() { gate.wait(until: { $0 }) { _ in } }
}

/// A sound encoder that compresses nothing: each block becomes a packet at its place, as long as it is.
public final class FakeSoundEncoder: SoundEncoding {
    public let stream: StreamDescription
    private let log: SoundLog
    /// Where the next block goes: the track is unbroken.
    private var position: Int64 = 0

    public init(stream id: Int, log: SoundLog) {
        let audio = StreamDescription.Audio(codec: .aac, sampleRate: SoundFormat.sampleRate,
                                            channels: SoundFormat.channels, samplesPerPacket: 1_024)
        stream = StreamDescription(id: id, media: .audio(audio), timeScale: SoundFormat.sampleRate)
        self.log = log
    }

    public var summary: String { "fake sound" }

    public func encode(_ samples: UnsafeBufferPointer<Float>, emit: (EncodedPacket) -> Void) throws(PodiumError) {
        log.waitUntilOpen()
        let frames = samples.count / SoundFormat.channels
        log.record(SoundLog.Block(position: position, frames: frames, silent: samples.allSatisfy { $0 == 0 }),
                   samples: samples)
        emit(EncodedPacket(streamID: stream.id, presentationTime: position, duration: Int64(frames), isKeyframe: true,
                           payload: ArrayPayload(count: 4)))
        position += Int64(frames)
    }

    public func flush(emit: (EncodedPacket) -> Void) throws(PodiumError) {}
}
