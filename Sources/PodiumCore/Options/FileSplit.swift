/// `?split=30m` or `?split=2G` on a file: the recording cut into files of about that length or
/// size (`talk-001.mkv`, `talk-002.mkv`, …), each whole and playable on its own. A cut is made at
/// the first keyframe past the mark, so no picture is lost and each file starts on a keyframe.
public enum FileSplit: Hashable, Sendable, CustomStringConvertible {
    case every(Duration)
    /// Bytes of packets written.
    case size(Int64)

    /// `30m`, `90s`, `1h` (at least a second), or `500M`, `2G` (binary: `G` is 2³⁰ bytes, at
    /// least 1M).
    public init(parsing text: String) throws(OptionParseError) {
        if ByteSize.looksLikeOne(text) {
            do {
                self = .size(try ByteSize(parsing: text, least: 1 << 20).bytes)
            } catch {
                throw OptionParseError("?split=\(text): \(error.reason)")
            }
            return
        }
        let length: Duration
        do {
            length = try Duration(parsing: text)
        } catch {
            throw OptionParseError("?split=\(text): expected a length such as 30m or 1h, or a size such as 2G")
        }
        guard length >= .seconds(1) else { throw OptionParseError("?split=\(text): a file lasts 1s at least") }
        self = .every(length)
    }

    public var description: String {
        switch self {
        case .every(let length):
            let seconds = length.components.seconds
            return seconds % 3600 == 0 ? "\(seconds / 3600)h" : seconds % 60 == 0 ? "\(seconds / 60)m" : "\(seconds)s"
        case .size(let bytes): return ByteSize(bytes: bytes).description
        }
    }

    /// Whether a file that holds `microseconds` of the recording and `bytes` of its packets is
    /// full: the next keyframe starts a new one.
    public func isFull(microseconds: Int64, bytes: Int64) -> Bool {
        switch self {
        case .every(let length): microseconds >= length.components.seconds * 1_000_000
            + length.components.attoseconds / 1_000_000_000_000
        case .size(let limit): bytes >= limit
        }
    }

    /// The name of file `number` (from 1) of the recording named `path`: `talk-003.mkv`.
    public static func piece(_ number: Int, of path: String) -> String {
        let digits = String(number)
        let numbered = "-" + String(repeating: "0", count: max(0, 3 - digits.count)) + digits
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return path + numbered }
        let cut = path.index(path.endIndex, offsetBy: -name[dot...].count)
        return path[..<cut] + numbered + path[cut...]
    }
}
