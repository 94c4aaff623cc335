import Foundation
public import PodiumCore

/// The folder an HLS output writes: its master playlist, written by Podium, and each variant's
/// media playlist and segments, written by libavformat's HLS muxer.
public enum HLSFolder {
    /// Whether the playlist at `master` may be written, without touching anything.
    /// - Throws: 73 when it, or a variant playlist of it, exists (and `overwrite` is off), or when
    ///   its folder cannot be made or written.
    public static func check(master: String, overwrite: Bool) throws(PodiumError) {
        let subject = PodiumError.Subject.output(master)
        let folder = OutputCheck.folder(of: master)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            // A missing folder is made, where its parent exists.
            let parent = OutputCheck.folder(of: folder)
            guard FileManager.default.fileExists(atPath: parent, isDirectory: &isFolder), isFolder.boolValue,
                  access(parent, W_OK) == 0 else {
                throw .cannotCreate("folder '\(parent)' does not exist or is not writable", about: subject)
            }
            return
        }
        guard isFolder.boolValue else { throw .cannotCreate("'\(folder)' is not a folder", about: subject) }
        if !overwrite, let existing = ([master] + files(of: master)).first(where: exists) {
            throw .cannotCreate("'\(existing)' exists (an earlier run's playlist, with its segments?)",
                                about: subject, remedy: .overwrite)
        }
        try OutputCheck.creatable(master, as: subject, overwrite: true)
    }

    /// Makes the folder, and removes what an earlier run of the same name left (the caller checked
    /// `--overwrite`), so no stale segment or variant is found beside the new ones.
    public static func prepare(master: String) throws(PodiumError) {
        let folder = OutputCheck.folder(of: master)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        } catch CocoaError.fileWriteFileExists {
        } catch {
            var isFolder: ObjCBool = false
            if !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) || !isFolder.boolValue {
                throw .cannotCreate("cannot make folder '\(folder)': \(error.localizedDescription)",
                                    about: .output(master))
            }
        }
        for file in [master] + files(of: master) { unlink(file) }
    }

    /// Writes the master playlist: under a temporary name, then renamed, so a player never reads half.
    /// - Parameter sound: the sound every variant carries beside its picture, if any.
    /// - Throws: 73 when it cannot be written.
    public static func writeMaster(_ ladder: EncodingPlan.Ladder, streams: [StreamDescription],
                                   sound: StreamDescription? = nil) throws(PodiumError) {
        let variants = ladder.variants.compactMap { entry -> HLSPlaylist.Variant? in
            guard streams.indices.contains(entry.encoding), let video = streams[entry.encoding].video else {
                return nil
            }
            let stream = streams[entry.encoding]
            // Until segments are measured, what the encoder's rate control allows: the target
            // rate on average, and at most its one-second buffer more in any one segment.
            let target = entry.variant.bitrate.bitsPerSecond + (sound?.bitrate?.bitsPerSecond ?? 0)
            let bound = target + Int(Double(target) / max(ladder.options.segment.seconds, 0.1))
            let measured = measuredBandwidth(entry.playlist)
            return HLSPlaylist.Variant(
                uri: String(entry.playlist.split(separator: "/").last ?? ""),
                bandwidth: measured?.peak ?? bound, averageBandwidth: measured?.average ?? target,
                size: video.size, framesPerSecond: video.framesPerSecond,
                codecs: stream.codecsAttribute.map { picture in
                    ([picture] + (sound?.codecsAttribute.map { [$0] } ?? [])).joined(separator: ",")
                })
        }
        let temporary = ladder.master + ".tmp"
        do {
            try HLSPlaylist.master(variants).write(toFile: temporary, atomically: false, encoding: .utf8)
        } catch {
            unlink(temporary)
            throw .cannotCreate("cannot write the master playlist: \(error.localizedDescription)",
                                about: .output(ladder.master))
        }
        guard rename(temporary, ladder.master) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .cannotCreate("cannot write the master playlist: \(reason)", about: .output(ladder.master))
        }
    }

    /// The peak and average bit rate of the segments a media playlist lists, from their files.
    private static func measuredBandwidth(_ playlist: String) -> (peak: Int, average: Int)? {
        guard let text = try? String(contentsOfFile: playlist, encoding: .utf8) else { return nil }
        let folder = OutputCheck.folder(of: playlist)
        let segments = HLSPlaylist.segments(of: text).map { segment in
            let bytes = FileStatus(path: folder + "/" + segment.uri)?.size ?? 0
            return (seconds: segment.seconds, bytes: bytes)
        }
        return HLSPlaylist.bandwidth(of: segments)
    }

    /// The files an earlier run of `master` left beside `live.m3u8`, named as Podium names them:
    /// `live_V.m3u8`, `live_V_00042.ts` or `.m4s`, `live_V_init.mp4`, and their `.tmp` versions.
    /// Nothing else in the folder (a `live_final.ts` of the user's) is ever touched.
    private static func files(of master: String) -> [String] {
        let folder = OutputCheck.folder(of: master)
        let stem = String((master.split(separator: "/").last ?? "").dropLast(".m3u8".count)) + "_"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { isVariantFile($0, stem: stem) }.map { folder + "/" + $0 }
    }

    /// Whether `name` is one of the files Podium writes for a variant of `stem`: the variant is
    /// named `720p` or `1440x1080`; segments are numbered with five digits or more.
    private static func isVariantFile(_ name: String, stem: String) -> Bool {
        var name = Substring(name)
        if name.hasSuffix(".tmp") { name = name.dropLast(4) }
        guard name.hasPrefix(stem) else { return false }
        var rest = name.dropFirst(stem.count)
        let variant = rest.prefix { $0 != "_" && $0 != "." }
        guard isVariantName(variant) else { return false }
        rest = rest.dropFirst(variant.count)
        if rest == ".m3u8" || rest == "_init.mp4" { return true }
        for kind in [".ts", ".m4s"] where rest.hasPrefix("_") && rest.hasSuffix(kind) {
            let number = rest.dropFirst().dropLast(kind.count)
            return number.count >= 5 && number.allSatisfy(\.isASCII) && number.allSatisfy(\.isNumber)
        }
        return false
    }

    /// `720p` or `1440x1080`.
    private static func isVariantName(_ name: Substring) -> Bool {
        func digits(_ text: Substring) -> Bool { !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isNumber } }
        if name.hasSuffix("p") { return digits(name.dropLast()) }
        let sides = name.split(separator: "x", omittingEmptySubsequences: false)
        return sides.count == 2 && digits(sides[0]) && digits(sides[1])
    }

    private static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}
