public import NIOCore

/// The fragmented MP4 (ISO/IEC 14496-12) that Media Source Extensions play: an initialization
/// segment describing one H.264 track, then one fragment (`moof` + `mdat`) per frame, so a
/// browser gets each frame as soon as it is encoded. Frames are shown in the order they are decoded
/// (no composition offsets): Podium's encoders make no B-frames.
public enum FragmentedMP4 {
    /// The one track's number.
    private static let track: UInt32 = 1

    /// `ftyp` and `moov` for an H.264 track of `size` with the `avcC` record `configuration`,
    /// counting time in units of `1 / timeScale` seconds.
    public static func initialization(width: Int, height: Int, timeScale: Int, configuration: [UInt8])
        -> ByteBuffer {
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
                out.writeInteger(track + 1)  // next track
            }
            box(&out, "trak") { out in
                fullBox(&out, "tkhd", flags: 3) { out in  // enabled, in the movie
                    out.writeInteger(UInt64(0))
                    out.writeInteger(track)
                    out.writeRepeatingByte(0, count: 4 + 4 + 8)  // reserved, duration, reserved
                    out.writeInteger(UInt32(0))  // layer, alternate group
                    out.writeInteger(UInt32(0))  // volume, reserved
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
                        out.writeString("vide")
                        out.writeRepeatingByte(0, count: 12)
                        out.writeString("Podium\0")
                    }
                    box(&out, "minf") { out in
                        fullBox(&out, "vmhd", flags: 1) { out in out.writeRepeatingByte(0, count: 8) }
                        box(&out, "dinf") { out in
                            fullBox(&out, "dref") { out in
                                out.writeInteger(UInt32(1))
                                fullBox(&out, "url ", flags: 1) { _ in }  // the data is in this file
                            }
                        }
                        box(&out, "stbl") { out in
                            fullBox(&out, "stsd") { out in
                                out.writeInteger(UInt32(1))
                                sampleEntry(&out, width: width, height: height, configuration: configuration)
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
                    out.writeInteger(track)
                    out.writeInteger(UInt32(1))  // sample description
                    out.writeRepeatingByte(0, count: 12)  // default duration, size, flags
                }
            }
        }
        return out
    }

    /// Writes one frame's fragment: `moof` (sequence number, start time, duration, size and
    /// whether it is a sync sample) and `mdat` holding `sample`, NAL units with four-byte lengths.
    /// - Parameters:
    ///   - decodeTime: the frame's time, in the track's units.
    ///   - duration: how long it shows unless another comes, in the track's units.
    ///   - sampleSize: the byte count `writeSample` will write.
    public static func writeFragment(
        into out: inout ByteBuffer, sequence: UInt32, decodeTime: UInt64, duration: UInt32, isKeyframe: Bool,
        sampleSize: Int, writeSample: (inout ByteBuffer) -> Void
    ) {
        // moof 8 + mfhd 16 + traf 8 + tfhd 16 + tfdt 20 + trun 12 + 4 + 4 + 4 + 4 + 4.
        let moofSize = 8 + 16 + 8 + 16 + 20 + 32
        box(&out, "moof") { out in
            fullBox(&out, "mfhd") { out in out.writeInteger(sequence) }
            box(&out, "traf") { out in
                fullBox(&out, "tfhd", flags: 0x02_0000) { out in out.writeInteger(track) }  // base is moof
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
