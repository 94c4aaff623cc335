import Foundation

/// What the files of an HLS ladder say, read back as a player reads them, and whether its segments
/// decode. (PodiumCore.HLSPlaylist writes them.)
public enum PlaylistFiles {
    /// The `#EXT-X-STREAM-INF` attributes of a master playlist, one dictionary per variant, with its URI.
    public static func variants(_ master: String) throws -> [[String: String]] {
        let lines = try String(contentsOfFile: master, encoding: .utf8).split(separator: "\n").map(String.init)
        return lines.indices.filter { lines[$0].hasPrefix("#EXT-X-STREAM-INF:") }.map { index in
            var attributes: [String: String] = ["URI": index + 1 < lines.count ? lines[index + 1] : ""]
            // Split on commas outside quotes.
            var field = "", quoted = false
            for character in lines[index].dropFirst("#EXT-X-STREAM-INF:".count) + "," {
                if character == "\"" { quoted.toggle() }
                if character == ",", !quoted {
                    let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
                    if pair.count == 2 { attributes[pair[0]] = pair[1].replacingOccurrences(of: "\"", with: "") }
                    field = ""
                } else {
                    field.append(character)
                }
            }
            return attributes
        }
    }

    /// The segments a media playlist lists, with their `#EXTINF` durations as written.
    public static func segments(_ playlist: String) throws -> (durations: [String], files: [String], ended: Bool) {
        let text = try String(contentsOfFile: playlist, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        let durations = lines.filter { $0.hasPrefix("#EXTINF:") }
        let folder = URL(fileURLWithPath: playlist).deletingLastPathComponent()
        let files = lines.filter { !$0.hasPrefix("#") }.map { folder.appendingPathComponent($0).path }
        return (durations, files, text.contains("#EXT-X-ENDLIST"))
    }

    /// What is wrong with a segment, or `nil` when it decodes without a word from ffprobe's
    /// decoder, from a keyframe, to at least one frame.
    public static func problem(ofSegment path: String) throws -> String? {
        let decoded = try Tools.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        let firstLine = decoded.stdout.split(separator: "\n").first.map(String.init) ?? ""
        let frames = Int(firstLine.trimmingCharacters(in: .punctuationCharacters)) ?? 0
        guard decoded.status == 0 && decoded.stderr.isEmpty && frames > 0 else {
            return "\(path): \(frames) frames, \(decoded.stderr)"
        }
        let flags = try Tools.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags",
                                              "-of", "csv=p=0", path])
        return flags.stdout.hasPrefix("K") ? nil : "\(path) does not start on a keyframe"
    }
}
