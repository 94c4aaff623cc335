public import NIOCore
public import PodiumCore

/// The fragmented MP4 (ISO/IEC 14496-12) that Media Source Extensions play: an initialization
/// segment describing one track (the H.264 picture, or the sound in a SourceBuffer of its own),
/// then one fragment (`moof` + `mdat`) per frame or sound packet, so a browser gets each as soon
/// as it is encoded. Frames are shown in the order they are decoded (no composition offsets):
/// Podium's encoders make no B-frames.
public enum FragmentedMP4 {
    /// Each track has a number of its own, though each goes in its own SourceBuffer: a fragment
    /// appended to the wrong one is then refused rather than played as the other.
    public enum Track: UInt32, Sendable {
        case picture = 1
        case sound = 2
    }

    /// `ftyp` and `moov` for an H.264 track of `size` with the `avcC` record `configuration`,
    /// counting time in units of `1 / timeScale` seconds.
    public static func initialization(width: Int, height: Int, timeScale: Int, configuration: [UInt8])
        -> ByteBuffer {
        initialization(track: .picture, timeScale: timeScale, width: width, height: height) { out in
            sampleEntry(&out, width: width, height: height, configuration: configuration)
        }
    }

    /// `ftyp` and `moov` for the sound of `stream`: AAC (an `mp4a` entry whose `esds` holds the
    /// AudioSpecificConfig in the stream's extradata) or Opus (an `Opus` entry whose `dOps` is
    /// made from the `OpusHead` in its extradata), counting time in samples.
    /// - Returns: `nil` when `stream` is not sound, or its extradata is not what its codec needs.
    public static func initialization(sound stream: StreamDescription) -> ByteBuffer? {
        guard let audio = stream.audio else { return nil }
        let entry: (inout ByteBuffer) -> Void
        switch audio.codec {
        case .aac:
            // Every length in the descriptors then fits the one byte this writes.
            guard !stream.extradata.isEmpty, stream.extradata.count < 64 else { return nil }
            entry = { out in aacEntry(&out, audio: audio, bitrate: stream.bitrate, configuration: stream.extradata) }
        case .opus:
            guard let specific = opusSpecific(fromHeader: stream.extradata) else { return nil }
            entry = { out in opusEntry(&out, audio: audio, specific: specific) }
        }
        return initialization(track: .sound, timeScale: stream.timeScale, width: 0, height: 0, sampleEntry: entry)
    }

    /// The segment of one track: a picture has a size and a video header, a sound a volume and a
    /// sound header.
    private static func initialization(track: Track, timeScale: Int, width: Int, height: Int,
                                       sampleEntry: (inout ByteBuffer) -> Void) -> ByteBuffer {
        let isPicture = track == .picture
        var out = ByteBuffer()
        box(&out, "ftyp") { out in
            out.writeString("iso5")
            out.writeInteger(UInt32(512))
            for brand in ["iso5", "iso6", "mp41"] { out.writeString(brand) }
        }
        box(&out, "moov") { out in
            fullBox(&out, "mvhd") { out in
                out.writeInteger(UInt64(0))  // creation and modification times
                out.writeInteger(UInt32(1_000))  // its own time scale; the duration is unknown
                out.writeInteger(UInt32(0))
                out.writeInteger(UInt32(0x0001_0000))  // rate 1.0
                out.writeInteger(UInt16(0x0100))  // volume 1.0
                out.writeRepeatingByte(0, count: 10)
                writeIdentityMatrix(&out)
                out.writeRepeatingByte(0, count: 24)
                out.writeInteger(track.rawValue + 1)  // next track
            }
            box(&out, "trak") { out in
                fullBox(&out, "tkhd", flags: 3) { out in  // enabled, in the movie
                    out.writeInteger(UInt64(0))
                    out.writeInteger(track.rawValue)
                    out.writeRepeatingByte(0, count: 4 + 4 + 8)  // reserved, duration, reserved
                    out.writeInteger(UInt32(0))  // layer, alternate group
                    out.writeInteger(isPicture ? UInt32(0) : UInt32(0x0100_0000))  // volume (1.0 for sound), reserved
                    writeIdentityMatrix(&out)
                    out.writeInteger(UInt32(width) << 16)
                    out.writeInteger(UInt32(height) << 16)
                }
                box(&out, "mdia") { out in
                    fullBox(&out, "mdhd") { out in
                        out.writeInteger(UInt64(0))
                        out.writeInteger(UInt32(timeScale))
                        out.writeInteger(UInt32(0))
                        out.writeInteger(UInt16(0x55C4))  // "und"
                        out.writeInteger(UInt16(0))
                    }
                    fullBox(&out, "hdlr") { out in
                        out.writeInteger(UInt32(0))
                        out.writeString(isPicture ? "vide" : "soun")
                        out.writeRepeatingByte(0, count: 12)
                        out.writeString("Podium\0")
                    }
                    box(&out, "minf") { out in
                        if isPicture {
                            fullBox(&out, "vmhd", flags: 1) { out in out.writeRepeatingByte(0, count: 8) }
                        } else {
                            fullBox(&out, "smhd") { out in out.writeInteger(UInt32(0)) }  // balance, reserved
                        }
                        box(&out, "dinf") { out in
                            fullBox(&out, "dref") { out in
                                out.writeInteger(UInt32(1))
                                fullBox(&out, "url ", flags: 1) { _ in }  // the data is in this file
                            }
                        }
                        box(&out, "stbl") { out in
                            fullBox(&out, "stsd") { out in
                                out.writeInteger(UInt32(1))
                                sampleEntry(&out)
                            }
                            // No samples here: they all come in fragments.
                            for name in ["stts", "stsc", "stco"] {
                                fullBox(&out, name) { out in out.writeInteger(UInt32(0)) }
                            }
                            fullBox(&out, "stsz") { out in out.writeInteger(UInt64(0)) }
                        }
                    }
                }
            }
            box(&out, "mvex") { out in
                fullBox(&out, "trex") { out in
                    out.writeInteger(track.rawValue)
                    out.writeInteger(UInt32(1))  // sample description
                    out.writeRepeatingByte(0, count: 12)  // default duration, size, flags
                }
            }
        }
        return out
    }

    /// Writes one frame's (or sound packet's) fragment: `moof` (sequence number, start time,
    /// duration, size and whether it is a sync sample) and `mdat` holding `sample` (for a picture,
    /// NAL units with four-byte lengths; for sound, the packet as encoded).
    /// - Parameters:
    ///   - track: the track of the initialization segment it follows.
    ///   - decodeTime: the frame's time, in the track's units.
    ///   - duration: how long it shows unless another comes, in the track's units.
    ///   - isKeyframe: whether decoding can start here (every sound packet).
    ///   - sampleSize: the byte count `writeSample` will write.
    public static func writeFragment(
        into out: inout ByteBuffer, track: Track = .picture, sequence: UInt32, decodeTime: UInt64, duration: UInt32,
        isKeyframe: Bool, sampleSize: Int, writeSample: (inout ByteBuffer) -> Void
    ) {
        // moof 8 + mfhd 16 + traf 8 + tfhd 16 + tfdt 20 + trun 12 + 4 + 4 + 4 + 4 + 4.
        let moofSize = 8 + 16 + 8 + 16 + 20 + 32
        box(&out, "moof") { out in
            fullBox(&out, "mfhd") { out in out.writeInteger(sequence) }
            box(&out, "traf") { out in
                fullBox(&out, "tfhd", flags: 0x02_0000) { out in out.writeInteger(track.rawValue) }  // base is moof
                fullBox(&out, "tfdt", version: 1) { out in out.writeInteger(decodeTime) }
                // Data offset, duration, size and flags of its one sample.
                fullBox(&out, "trun", flags: 0x000_701) { out in
                    out.writeInteger(UInt32(1))
                    out.writeInteger(UInt32(moofSize + 8))
                    out.writeInteger(duration)
                    out.writeInteger(UInt32(sampleSize))
                    // A sync sample depends on no other; any other depends on others and is not one.
                    out.writeInteger(isKeyframe ? UInt32(0x0200_0000) : UInt32(0x0101_0000))
                }
            }
        }
        out.writeInteger(UInt32(8 + sampleSize))
        out.writeString("mdat")
        writeSample(&out)
    }

    /// `avc1`: a visual sample entry with its `avcC`.
    private static func sampleEntry(_ out: inout ByteBuffer, width: Int, height: Int, configuration: [UInt8]) {
        box(&out, "avc1") { out in
            out.writeRepeatingByte(0, count: 6)
            out.writeInteger(UInt16(1))  // data reference
            out.writeRepeatingByte(0, count: 16)
            out.writeInteger(UInt16(width))
            out.writeInteger(UInt16(height))
            out.writeInteger(UInt32(0x0048_0000))  // 72 dpi, twice
            out.writeInteger(UInt32(0x0048_0000))
            out.writeInteger(UInt32(0))
            out.writeInteger(UInt16(1))  // frames a sample
            out.writeRepeatingByte(0, count: 32)  // compressor name
            out.writeInteger(UInt16(0x0018))  // depth
            out.writeInteger(Int16(-1))
            box(&out, "avcC") { out in out.writeBytes(configuration) }
        }
    }

    /// `mp4a`: a sound sample entry whose `esds` (ISO/IEC 14496-1 descriptors) says AAC and
    /// holds its AudioSpecificConfig.
    private static func aacEntry(_ out: inout ByteBuffer, audio: StreamDescription.Audio, bitrate: Bitrate?,
                                 configuration: [UInt8]) {
        box(&out, "mp4a") { out in
            writeSoundEntryFields(&out, audio: audio)
            fullBox(&out, "esds") { out in
                let specificSize = 2 + configuration.count
                let decoderConfigSize = 13 + specificSize
                descriptor(&out, tag: 0x03, size: 3 + 2 + decoderConfigSize + 3)  // ES_Descriptor
                out.writeInteger(UInt16(0))  // ES_ID
                out.writeInteger(UInt8(0))  // no dependence, URL or OCR stream
                descriptor(&out, tag: 0x04, size: decoderConfigSize)  // DecoderConfigDescriptor
                out.writeInteger(UInt8(0x40))  // ISO/IEC 14496-3 audio
                out.writeInteger(UInt8(0x05 << 2 | 1))  // an audio stream, downstream, reserved bit set
                out.writeBytes([0, 0, 0])  // buffer size: not said
                let bitsPerSecond = UInt32(clamping: bitrate?.bitsPerSecond ?? 0)
                out.writeInteger(bitsPerSecond)  // the most
                out.writeInteger(bitsPerSecond)  // on average
                descriptor(&out, tag: 0x05, size: configuration.count)  // DecoderSpecificInfo
                out.writeBytes(configuration)
                descriptor(&out, tag: 0x06, size: 1)  // SLConfigDescriptor
                out.writeInteger(UInt8(2))  // predefined for MP4 files
            }
        }
    }

    /// A descriptor's tag and size; every size here is below 128, which one byte holds.
    private static func descriptor(_ out: inout ByteBuffer, tag: UInt8, size: Int) {
        out.writeInteger(tag)
        out.writeInteger(UInt8(size))
    }

    /// `Opus`: a sound sample entry with its `dOps` (Encapsulation of Opus in ISO BMFF, 4.3.2).
    private static func opusEntry(_ out: inout ByteBuffer, audio: StreamDescription.Audio, specific: [UInt8]) {
        box(&out, "Opus") { out in
            writeSoundEntryFields(&out, audio: audio)
            box(&out, "dOps") { out in out.writeBytes(specific) }
        }
    }

    /// The body of `dOps` from an `OpusHead` (RFC 7845 5.1): the same fields without the magic,
    /// big-endian where the header is little-endian; `nil` when `header` is not one.
    static func opusSpecific(fromHeader header: [UInt8]) -> [UInt8]? {
        guard header.count >= 19, header.starts(with: Array("OpusHead".utf8)) else { return nil }
        let channels = header[9]
        let family = header[18]
        // Family 0 (mono, stereo) has no mapping table; others follow with streams, coupled and a map.
        guard family == 0 || header.count >= 21 + Int(channels) else { return nil }
        var specific: [UInt8] = [0, channels, header[11], header[10]]  // version 0, channels, pre-skip
        specific += [header[15], header[14], header[13], header[12]]  // the input's sample rate
        specific += [header[17], header[16], family]  // output gain
        if family != 0 { specific += header[19..<(21 + Int(channels))] }
        return specific
    }

    /// What every sound sample entry starts with (ISO/IEC 14496-12 12.2.3): channels, 16-bit
    /// samples, and the rate as a 16.16 number.
    private static func writeSoundEntryFields(_ out: inout ByteBuffer, audio: StreamDescription.Audio) {
        out.writeRepeatingByte(0, count: 6)
        out.writeInteger(UInt16(1))  // data reference
        out.writeRepeatingByte(0, count: 8)
        out.writeInteger(UInt16(audio.channels))
        out.writeInteger(UInt16(16))
        out.writeInteger(UInt32(0))  // pre-defined, reserved
        out.writeInteger(UInt32(min(audio.sampleRate, 0xFFFF)) << 16)
    }

    private static func writeIdentityMatrix(_ out: inout ByteBuffer) {
        for value: UInt32 in [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] { out.writeInteger(value) }
    }

    /// A box: its size, filled in once `body` wrote the contents, and its four-letter type.
    private static func box(_ out: inout ByteBuffer, _ type: String, _ body: (inout ByteBuffer) -> Void) {
        let start = out.writerIndex
        out.writeInteger(UInt32(0))
        out.writeString(type)
        body(&out)
        out.setInteger(UInt32(out.writerIndex - start), at: start)
    }

    /// A full box: a box whose contents start with a version and flags.
    private static func fullBox(_ out: inout ByteBuffer, _ type: String, version: UInt8 = 0, flags: UInt32 = 0,
                                _ body: (inout ByteBuffer) -> Void) {
        box(&out, type) { out in
            out.writeInteger(UInt32(version) << 24 | flags)
            body(&out)
        }
    }
}
