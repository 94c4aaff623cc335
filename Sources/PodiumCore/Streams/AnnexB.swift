/// H.264 and HEVC byte streams as encoders write them (ITU-T H.264 annex B): NAL units, each
/// after a `00 00 01` or `00 00 00 01` start code.
public enum AnnexB {
    /// Calls `body` with the range of each NAL unit of `bytes`, in order, without its start code
    /// or the zeros before the next one. Allocates nothing.
    public static func forEachUnit(in bytes: UnsafeRawBufferPointer, _ body: (Range<Int>) -> Void) {
        var start: Int?
        var index = 0
        let count = bytes.count
        while index + 2 < count {
            guard bytes[index + 2] <= 1 else {
                // The third byte of a start code is 1 and the two before are 0: skip ahead by three.
                index += 3
                continue
            }
            if bytes[index] == 0 && bytes[index + 1] == 0 && bytes[index + 2] == 1 {
                if let start { body(start..<trimmed(bytes, end: index, start: start)) }
                start = index + 3
                index += 3
            } else {
                index += 1
            }
        }
        if let start, start < count { body(start..<trimmed(bytes, end: count, start: start)) }
    }

    /// `end`, less the zeros of a four-byte start code that follows.
    private static func trimmed(_ bytes: UnsafeRawBufferPointer, end: Int, start: Int) -> Int {
        var end = end
        while end > start && bytes[end - 1] == 0 { end -= 1 }
        return end
    }

    /// The units of an H.264 or HEVC stream's header but its supplemental information (SEI): that
    /// says how the stream was encoded (x265 writes its options there), not how to decode it.
    public static func decodingUnits(of header: [UInt8], hevc: Bool) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        header.withUnsafeBytes { bytes in
            forEachUnit(in: bytes) { range in
                guard let first = range.first.map({ header[$0] }) else { return }
                let isSEI = hevc ? [39, 40].contains((first >> 1) & 0x3F) : h264Type(first) == 6
                if !isSEI { units.append(header[range]) }
            }
        }
        return units
    }

    /// The H.264 NAL unit type of a unit starting with `header` (7 SPS, 8 PPS, 5 IDR slice, 9 AUD).
    public static func h264Type(_ header: UInt8) -> UInt8 { header & 0x1F }

    /// The `AVCDecoderConfigurationRecord` (`avcC`, ISO/IEC 14496-15 5.3.3) for one SPS and one
    /// PPS, with four-byte lengths before each unit of the samples it describes.
    /// - Returns: `nil` when `sps` is too short to hold a profile and a level.
    public static func avcConfiguration(sps: [UInt8], pps: [UInt8]) -> [UInt8]? {
        guard sps.count >= 4, sps.count <= 0xFFFF, pps.count <= 0xFFFF else { return nil }
        var record: [UInt8] = [1, sps[1], sps[2], sps[3], 0xFC | 3, 0xE0 | 1]
        record += [UInt8(sps.count >> 8), UInt8(sps.count & 0xFF)] + sps
        record += [1, UInt8(pps.count >> 8), UInt8(pps.count & 0xFF)] + pps
        return record
    }
}
