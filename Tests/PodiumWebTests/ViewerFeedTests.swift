import Foundation
import NIOCore
import PodiumCore
@testable import PodiumWeb
import Testing

/// What each viewer of a feed is sent when the run has sound: the sound from its first keyframe
/// on, in the form its page plays, and only in a codec its page said it plays; and how sound
/// packets count against a viewer's bounds.
@Suite struct ViewerFeedTests {
    static let pictureStream = 0
    static let soundStream = 1
    /// An SPS, a PPS and an IDR slice: enough for the feed to learn the codec parameters.
    static let keyframe: [UInt8] = [0, 0, 0, 1, 0x67, 0x42, 0x00, 0x1E, 0xAB, 0, 0, 0, 1, 0x68, 0xCE, 0x38, 0x80,
                                    0, 0, 0, 1, 0x65, 0x88, 0x84, 0x21]
    static let deltaFrame: [UInt8] = [0, 0, 0, 1, 0x41, 0x9A, 0x02]
    /// AAC LC, 48 kHz, stereo.
    static let audioSpecificConfig: [UInt8] = [0x11, 0x90]

    static func streams(sound codec: AudioCodec = .aac) -> [StreamDescription] {
        let video = StreamDescription.Video(codec: .h264, size: PixelSize(width: 320, height: 240), framesPerSecond: 30,
                                            colors: ColorTags(range: .limited))
        let audio = StreamDescription.Audio(codec: codec, sampleRate: 48_000, channels: 2,
                                            samplesPerPacket: codec == .aac ? 1_024 : 960)
        let header: [UInt8] = Array("OpusHead".utf8) + [1, 2, 0x38, 0x01, 0x80, 0xBB, 0, 0, 0, 0, 0]
        return [
            StreamDescription(id: pictureStream, video: video, timeScale: 1_000_000),
            StreamDescription(id: soundStream, media: .audio(audio), timeScale: 48_000,
                              extradata: codec == .aac ? audioSpecificConfig : header,
                              bitrate: Bitrate(bitsPerSecond: 128_000)),
        ]
    }

    static func feed(sound codec: AudioCodec = .aac) throws -> ViewerFeed {
        let feed = ViewerFeed(name: "240p", stream: pictureStream, sound: soundStream, hub: StreamHub())
        try feed.start(streams(sound: codec))
        return feed
    }

    static func frame(at microseconds: Int64, keyframe: Bool) -> EncodedPacket {
        EncodedPacket(streamID: pictureStream, presentationTime: microseconds, isKeyframe: keyframe,
                      payload: ArrayPayload(keyframe ? Self.keyframe : deltaFrame),
                      captureTime: 5_000_000_000 + UInt64(microseconds) * 1_000)
    }

    static func sound(at samples: Int64, bytes: Int = 300) -> EncodedPacket {
        EncodedPacket(streamID: soundStream, presentationTime: samples, duration: 1_024, isKeyframe: true,
                      payload: ArrayPayload(count: bytes),
                      captureTime: UInt64(5_000_000_000 + samples * 62_500 / 3))
    }

    /// Everything queued for `viewer`, once it is told no more will come.
    static func sent(to viewer: Viewer) async -> [Viewer.Message] {
        viewer.finish()
        var messages: [Viewer.Message] = []
        while let message = await viewer.next() { messages.append(message) }
        return messages
    }

    /// The kinds of `messages`: `text`, or each binary message's first byte.
    static func kinds(_ messages: [Viewer.Message]) -> [String] {
        messages.map { message in
            switch message {
            case .text: "text"
            case .data(let buffer), .frame(let buffer), .sound(let buffer):
                "\(buffer.getInteger(at: 0, as: UInt8.self) ?? 0)"
            }
        }
    }

    @Test func aWebCodecsPageGetsTheSoundFromItsFirstKeyframeOn() async throws {
        let feed = try Self.feed()
        let viewer = Viewer(id: 1, decoder: .webcodecs, soundCodecs: ["mp4a.40.2", "opus"])
        feed.add(viewer)
        feed.offer(Self.sound(at: 0))
        feed.offer(Self.frame(at: 0, keyframe: true))
        feed.offer(Self.sound(at: 48_000))
        feed.offer(Self.frame(at: 33_333, keyframe: false))
        let messages = await Self.sent(to: viewer)
        #expect(Self.kinds(messages) == ["text", "1", "3", "1"])
        guard case .text(let config) = messages.first else { return }
        #expect(config.contains(#""audio":{"codec":"mp4a.40.2","sampleRate":48000,"channels":2,"description":"EZA="}"#),
                "\(config)")
        guard case .sound(let packet) = messages[2] else { return }
        #expect(packet.readableBytes == ViewerFeed.frameHeaderSize + 300)
        let captured = Double(bitPattern: try #require(packet.getInteger(at: 8, as: UInt64.self)))
        let microseconds = Double(bitPattern: try #require(packet.getInteger(at: 16, as: UInt64.self)))
        #expect(captured == 6_000, "heard a second after the run's origin, in ms of the server's clock")
        #expect(microseconds == 1_000_000)
    }

    /// A Media Source Extensions page that plays the sound gets its initialization segment after
    /// the picture's, fragments of the sound track, and pictures that last until the next comes.
    @Test func anMSEPageGetsTheSoundTrackAndHeldPictures() async throws {
        let feed = try Self.feed(sound: .opus)
        let viewer = Viewer(id: 1, decoder: .mse, soundCodecs: ["opus"])
        feed.add(viewer)
        feed.offer(Self.frame(at: 0, keyframe: true))
        // The encoder's priming packet comes before the timeline's start: no fragment can hold it.
        feed.offer(Self.sound(at: -312))
        feed.offer(Self.sound(at: 648))
        let messages = await Self.sent(to: viewer)
        #expect(Self.kinds(messages) == ["text", "2", "4", "1", "3"])
        guard messages.count == 5, case .data(let initialization) = messages[2], case .frame(let frame) = messages[3],
              case .sound(let sound) = messages[4] else { return }
        let segment = Array(initialization.readableBytesView)
        #expect(segment.contains(subsequence: Array("soun".utf8)) && segment.contains(subsequence: Array("dOps".utf8)))
        #expect(Self.sampleDuration(frame) == 47_721 * 90_000, "a picture lasts 13 hours unless the next comes")
        #expect(Self.sampleDuration(sound) == 1_024)
        #expect(Array(sound.readableBytesView).contains(subsequence: Array("moof".utf8)))
    }

    /// A page that cannot play the run's codec gets no sound, and its pictures in sequence.
    @Test func aPageThatCannotPlayTheCodecGetsThePictureAlone() async throws {
        let feed = try Self.feed(sound: .aac)
        let mse = Viewer(id: 1, decoder: .mse, soundCodecs: ["opus"])
        let webcodecs = Viewer(id: 2, decoder: .webcodecs, soundCodecs: [])
        feed.add(mse)
        feed.add(webcodecs)
        feed.offer(Self.frame(at: 0, keyframe: true))
        feed.offer(Self.sound(at: 1_024))
        let sentToMSE = await Self.sent(to: mse)
        #expect(Self.kinds(sentToMSE) == ["text", "2", "1"])
        if case .frame(let frame) = sentToMSE.last { #expect(Self.sampleDuration(frame) == 3_000) }
        #expect(Self.kinds(await Self.sent(to: webcodecs)) == ["text", "1"])
    }

    /// A viewer that falls behind less than a second after the last keyframe asked for waits for
    /// one: on a screen that then stays still (nothing more offered), it is asked again once the
    /// second has passed, not never.
    @Test func aViewerBehindOnAStillScreenHasItsKeyframeAskedAgain() throws {
        let hub = StreamHub()
        let feed = ViewerFeed(name: "240p", stream: Self.pictureStream, sound: Self.soundStream, hub: hub)
        try feed.start(Self.streams(sound: .aac))
        let viewer = Viewer(id: 1, decoder: .webcodecs)
        feed.add(viewer)
        _ = hub.takeKeyframeRequest(stream: Self.pictureStream)
        // A keyframe and ten frames nobody reads, twice: behind at 0.33 s (asked), then at 0.73 s.
        for start in [0, 400_000] as [Int64] {
            feed.offer(Self.frame(at: start, keyframe: true))
            for index in 1...10 { feed.offer(Self.frame(at: start + Int64(index) * 33_333, keyframe: false)) }
            #expect(viewer.isResyncing)
            #expect(hub.takeKeyframeRequest(stream: Self.pictureStream) == (start == 0), "asked at most once a second")
        }
        let second = Self.frame(at: 400_000 + 10 * 33_333, keyframe: false).captureTime
        feed.resyncStragglers(at: second + 100_000_000)
        #expect(!hub.isKeyframeWanted, "not within a second of the last asking")
        feed.resyncStragglers(at: second + 700_000_000)
        #expect(hub.takeKeyframeRequest(stream: Self.pictureStream), "asked again")
    }

    /// Half a second of sound waiting is as far behind as ten frames: the viewer drops what waits,
    /// its sound with it, and starts again at the next keyframe; a few packets do not count as frames.
    @Test func soundCountsApartFromFramesAgainstAViewersBounds() async throws {
        let viewer = Viewer(id: 1, decoder: .webcodecs, soundCodecs: ["mp4a.40.2"])
        let packet = ByteBuffer(bytes: [3] + [UInt8](repeating: 0, count: 299))
        #expect(viewer.offerSound(packet) == .waiting, "nothing before the first keyframe")
        #expect(viewer.offer(ByteBuffer(bytes: [1, 1]), isKeyframe: true) { [] } == .queued)
        for _ in 0..<Viewer.maxSoundPackets { #expect(viewer.offerSound(packet) == .queued) }
        for _ in 0..<(Viewer.maxFrames - 1) {
            #expect(viewer.offer(ByteBuffer(bytes: [1, 0]), isKeyframe: false) { [] } == .queued)
        }
        #expect(viewer.offerSound(packet) == .fellBehind)
        #expect(viewer.offerSound(packet) == .fellBehind, "it waits for a keyframe")
        #expect(viewer.offer(ByteBuffer(bytes: [1, 1]), isKeyframe: true) { [] } == .queued)
        #expect(viewer.offerSound(packet) == .queued)
        #expect(viewer.counts.skipped == Viewer.maxFrames, "the frames that waited were skipped")
        #expect(viewer.takeTimesBehind() == 1)
        #expect(await Self.sent(to: viewer).count == 2, "the new keyframe and the sound after it")
    }

    /// The duration of the one sample of the fragment after a message's header.
    static func sampleDuration(_ message: ByteBuffer) -> Int? {
        let bytes = Array(message.readableBytesView)
        guard let trun = bytes.firstIndex(of: Array("trun".utf8)) else { return nil }
        // Version and flags, sample count, data offset: then the duration.
        let at = trun + 4 + 4 + 4 + 4
        return bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
    }
}

extension Array where Element == UInt8 {
    func firstIndex(of subsequence: [UInt8]) -> Int? {
        guard count >= subsequence.count else { return nil }
        return (0...(count - subsequence.count)).first {
            self[$0..<($0 + subsequence.count)].elementsEqual(subsequence)
        }
    }

    func contains(subsequence: [UInt8]) -> Bool { firstIndex(of: subsequence) != nil }
}
