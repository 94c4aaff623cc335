import Foundation
import NIOCore
import PodiumCore
import PodiumTestSupport
import PodiumWeb
import Testing

/// The fragmented MP4 the MSE viewers get, checked by FFmpeg: an H.264 stream that x264 wrote as
/// Annex B without B-frames (as Podium's encoders make them), cut into access units and written
/// as Podium writes it (one fragment a frame), decodes whole, frame for frame; and a second of a
/// 1 kHz tone that FFmpeg's AAC encoder or libopus made, a fragment a packet, decodes to that tone.
@Suite struct FragmentedMP4Tests {
    @Test func ffmpegDecodesEveryFragment() throws {
        let folder = try Tools.temporaryFolder()
        let stream = folder.appendingPathComponent("in.h264").path
        let made = try Tools.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30",
                                            "-frames:v", "45", "-c:v", "libx264", "-g", "15", "-bf", "0",
                                            "-x264-params", "aud=1", "-f", "h264", stream])
        #expect(made.status == 0, "\(made.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: stream)))
        // Access units start at each delimiter (type 9); keyframes hold an IDR slice (type 5).
        var units: [Range<Int>] = []
        bytes.withUnsafeBytes { buffer in AnnexB.forEachUnit(in: buffer) { units.append($0) } }
        var frames: [(units: [Range<Int>], isKeyframe: Bool)] = []
        var sps: [UInt8] = []
        var pps: [UInt8] = []
        for unit in units {
            switch AnnexB.h264Type(bytes[unit.lowerBound]) {
            case 9: frames.append(([], false))
            case 7: sps = Array(bytes[unit])
            case 8: pps = Array(bytes[unit])
            case let type:
                guard !frames.isEmpty else { continue }
                frames[frames.count - 1].units.append(unit)
                if type == 5 { frames[frames.count - 1].isKeyframe = true }
            }
        }
        #expect(frames.count == 45)
        let configuration = try #require(AnnexB.avcConfiguration(sps: sps, pps: pps))
        var out = FragmentedMP4.initialization(width: 320, height: 240, timeScale: 1_000_000,
                                               configuration: configuration)
        for (index, frame) in frames.enumerated() {
            let size = frame.units.reduce(0) { $0 + 4 + $1.count }
            FragmentedMP4.writeFragment(into: &out, sequence: UInt32(index + 1), decodeTime: UInt64(index) * 33_333,
                                        duration: 33_333, isKeyframe: frame.isKeyframe, sampleSize: size) { out in
                for unit in frame.units {
                    out.writeInteger(UInt32(unit.count))
                    out.writeBytes(bytes[unit])
                }
            }
        }
        let file = folder.appendingPathComponent("out.mp4")
        try Data(out.readableBytesView).write(to: file)
        let decoded = try Tools.run("ffmpeg", ["-v", "error", "-i", file.path, "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "decodes without an error: \(decoded.stderr)")
        let probed = try Tools.probe(file.path)
        #expect(probed.frames == 45 && probed.width == 320 && probed.height == 240, "\(probed)")
        let keyframes = try Tools.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                  "packet=flags", "-of", "csv=p=0", file.path])
        #expect(keyframes.stdout.split(separator: "\n").filter { $0.hasPrefix("K") }.count == 3, "every 15th frame")
    }

    @Test func ffmpegDecodesTheSoundOfAACFragments() throws {
        let adts = try Self.encodeTone(["-c:a", "aac", "-f", "adts"])
        // ADTS frames (ISO/IEC 13818-7): each header holds its length and what an AudioSpecificConfig says.
        var packets: [ArraySlice<UInt8>] = []
        var offset = 0
        while offset + 7 <= adts.count {
            let header = adts[offset..<(offset + 7)]
            let length = Int(header[offset + 3] & 3) << 11 | Int(header[offset + 4]) << 3 | Int(header[offset + 5] >> 5)
            let headerSize = header[offset + 1] & 1 == 1 ? 7 : 9
            packets.append(adts[(offset + headerSize)..<(offset + length)])
            offset += length
        }
        let profile = (adts[2] >> 6) + 1
        let rateIndex = (adts[2] >> 2) & 0xF
        let channels = (adts[2] & 1) << 2 | adts[3] >> 6
        let configuration = [profile << 3 | rateIndex >> 1, (rateIndex & 1) << 7 | channels << 3]
        try Self.checkTone(of: .aac, extradata: configuration, packets: packets, samplesPerPacket: 1_024)
    }

    @Test func ffmpegDecodesTheSoundOfOpusFragments() throws {
        let ogg = try Self.encodeTone(["-c:a", "libopus", "-f", "ogg"])
        // Ogg pages (RFC 3533): a packet is the segments up to one shorter than 255 bytes.
        var packets: [ArraySlice<UInt8>] = []
        var packet: [UInt8] = []
        var offset = 0
        while offset + 27 <= ogg.count, ogg[offset..<(offset + 4)].elementsEqual("OggS".utf8) {
            let segments = Int(ogg[offset + 26])
            var data = offset + 27 + segments
            for lacing in ogg[(offset + 27)..<(offset + 27 + segments)] {
                packet += ogg[data..<(data + Int(lacing))]
                data += Int(lacing)
                if lacing < 255 {
                    packets.append(packet[...])
                    packet = []
                }
            }
            offset = data
        }
        // The identification header, the comment header, then the sound.
        let header = try #require(packets.first)
        try Self.checkTone(of: .opus, extradata: Array(header), packets: Array(packets.dropFirst(2)),
                           samplesPerPacket: 960)
    }

    /// A second of a 1 kHz tone, stereo at 48 kHz, encoded by FFmpeg with `arguments`.
    static func encodeTone(_ arguments: [String]) throws -> [UInt8] {
        let file = try Tools.temporaryFolder().appendingPathComponent("tone").path
        let made = try Tools.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000",
                                            "-t", "1", "-ac", "2", "-b:a", "128k"] + arguments + [file])
        #expect(made.status == 0, "\(made.stderr)")
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
    }

    /// Writes `packets` as the viewer's sound track (a fragment each, end to end) and has FFmpeg
    /// decode it: a second of the tone.
    static func checkTone(of codec: AudioCodec, extradata: [UInt8], packets: [ArraySlice<UInt8>],
                          samplesPerPacket: Int) throws {
        #expect(packets.count >= 47, "\(packets.count) packets")
        let audio = StreamDescription.Audio(codec: codec, sampleRate: 48_000, channels: 2,
                                            samplesPerPacket: samplesPerPacket)
        let stream = StreamDescription(id: 1, media: .audio(audio), timeScale: 48_000, extradata: extradata,
                                       bitrate: Bitrate(bitsPerSecond: 128_000))
        var out = try #require(FragmentedMP4.initialization(sound: stream))
        for (index, packet) in packets.enumerated() {
            FragmentedMP4.writeFragment(
                into: &out, track: .sound, sequence: UInt32(index + 1),
                decodeTime: UInt64(index * samplesPerPacket), duration: UInt32(samplesPerPacket), isKeyframe: true,
                sampleSize: packet.count
            ) { out in out.writeBytes(packet) }
        }
        let file = try Tools.temporaryFolder().appendingPathComponent("sound.mp4")
        try Data(out.readableBytesView).write(to: file)
        let probed = try Tools.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels",
                                               "-of", "csv=p=0", file.path])
        #expect(probed.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "\(codec),48000,2",
                "\(probed.stdout) \(probed.stderr)")
        let samples = try Tools.decodeSound(file.path)
        // A second, give or take the encoder's priming and last packet.
        #expect(abs(samples.count - 48_000) <= 2 * samplesPerPacket, "\(samples.count) samples")
        let middle = samples[12_000..<36_000]
        #expect(Tools.power(of: 1_000, in: middle) > 1e-3, "the tone")
        #expect(Tools.power(of: 1_000, in: middle) > 1_000 * Tools.power(of: 1_500, in: middle), "the tone alone")
    }
}
