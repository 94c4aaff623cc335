extension StreamDescription {
    /// The stream's codec as RFC 6381 names it for HLS and MSE (`avc1.64001f`, `hvc1.1.6.L93.B0`,
    /// `mp4a.40.2`), read from the parameter sets in `extradata`; `nil` when they are not there.
    public var codecsAttribute: String? {
        switch media {
        case .video(let video) where video.codec == .h264: avcCodecs
        case .video(let video) where video.codec == .hevc: hevcCodecs
        case .audio(let audio) where audio.codec == .aac: "mp4a.40.2"
        case .audio(let audio) where audio.codec == .opus: "opus"
        default: nil
        }
    }

    /// `avc1.PPCCLL`: profile, constraint flags and level, the three bytes after the SPS's header.
    private var avcCodecs: String? {
        let sps: ArraySlice<UInt8>
        if extradata.first == 1, extradata.count >= 4 {
            // avcC: the same three bytes follow its version.
            sps = extradata[1..<4]
        } else if let unit = Self.annexBUnits(extradata).first(where: { ($0.first ?? 0) & 0x1F == 7 }),
                  unit.count >= 4 {
            sps = unit[(unit.startIndex + 1)..<(unit.startIndex + 4)]
        } else {
            return nil
        }
        return "avc1." + sps.map(Self.hex).joined()
    }

    /// `hvc1.P.C.TL.B…`, from the profile, tier and level in the SPS (ISO/IEC 14496-15, annex E).
    private var hevcCodecs: String? {
        guard let unit = Self.annexBUnits(extradata).first(where: { (($0.first ?? 0) >> 1) & 0x3F == 33 }) else {
            return nil
        }
        let bytes = Self.withoutEmulationPrevention(unit)
        // Two bytes of NAL header, one of ids and sub-layer counts, then profile_tier_level.
        guard bytes.count >= 15 else { return nil }
        let space = Int(bytes[3] >> 6)
        let tier = (bytes[3] >> 5) & 1
        let profile = Int(bytes[3] & 0x1F)
        let compatibility = bytes[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        // The compatibility flags are written bit-reversed.
        var reversed: UInt32 = 0
        for bit in 0..<32 where compatibility & (1 << bit) != 0 { reversed |= 1 << (31 - bit) }
        var constraints = Array(bytes[8..<14])
        while constraints.last == 0 { constraints.removeLast() }
        let level = Int(bytes[14])
        let prefix = ["", "A", "B", "C"][space]
        return "hvc1.\(prefix)\(profile).\(String(reversed, radix: 16, uppercase: true))."
            + "\(tier == 1 ? "H" : "L")\(level)" + constraints.map { "." + Self.hex($0).uppercased() }.joined()
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }

    /// The NAL units of an Annex B byte stream.
    static func annexBUnits(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var ranges: [Range<Int>] = []
        bytes.withUnsafeBytes { buffer in AnnexB.forEachUnit(in: buffer) { ranges.append($0) } }
        return ranges.map { bytes[$0] }
    }

    /// `unit` with the `03` of each `00 00 03` removed.
    private static func withoutEmulationPrevention(_ unit: ArraySlice<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        var zeros = 0
        for byte in unit {
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            result.append(byte)
        }
        return result
    }
}
