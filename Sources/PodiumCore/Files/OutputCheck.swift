import Foundation

/// Checks on the files Podium writes (`--to FILE`, `--stats-json`, `--plot`), before anything is
/// opened or written.
public enum OutputCheck {
    /// Whether `path` names a stream to write into rather than a file to make: `-` (stdout), a
    /// FIFO, a terminal or another device, or one of Podium's own descriptors (`/dev/stdout`,
    /// `/dev/fd/N`, `/proc/self/fd/N`: stdout even when the shell sent that to a file). A stream
    /// is written as it is: never created, truncated or replaced.
    public static func isStream(_ path: String) -> Bool {
        let descriptors = ["-", "/dev/stdout", "/dev/stderr"]
        if descriptors.contains(path) || path.hasPrefix("/dev/fd/") || path.hasPrefix("/proc/self/fd/") { return true }
        guard let status = FileStatus(path: path) else { return false }
        return status.kind == .other
    }

    /// Whether `path` may be written: a stream always (see `isStream`); an existing regular file
    /// only with `overwrite`; a new file where its folder exists and can hold it.
    /// - Parameter subject: what refusals are about, the path as the user gave it.
    /// - Throws: 73 when the file exists (and `overwrite` is off), is a folder, or cannot be
    ///   created: its folder is missing, read-only, not writable or a kernel interface (`/sys`).
    public static func creatable(_ path: String, as subject: PodiumError.Subject, overwrite: Bool)
        throws(PodiumError) {
        if isStream(path) { return }
        if let status = FileStatus(path: path) {
            if status.kind == .folder { throw .cannotCreate("a folder, not a file", about: subject) }
            guard overwrite else { throw .cannotCreate("already exists", about: subject, remedy: .overwrite) }
            guard access(path, W_OK) == 0 else { throw .cannotCreate("not writable", about: subject) }
            return
        }
        let folder = folder(of: path)
        guard FileStatus(path: folder)?.kind == .folder else {
            throw .cannotCreate("folder '\(folder)' does not exist", about: subject)
        }
        var volume = statvfs()
        if statvfs(folder, &volume) == 0, volume.f_flag & UInt(ST_RDONLY) != 0 {
            throw .cannotCreate("folder '\(folder)' is on a read-only file system", about: subject)
        }
        // The one sure test (permissions, quotas, kernel folders such as /sys): make the file and
        // remove it at once. Nothing is left, and an existing file is never touched (O_EXCL).
        let probe = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard probe >= 0 else {
            throw .cannotCreate("cannot be created: \(String(cString: strerror(errno)))", about: subject)
        }
        close(probe)
        unlink(path)
    }

    /// Refuses two outputs that name one file, however spelled (`a.mkv`, `./a.mkv`, a symlink to it).
    /// - Parameter files: each output's flag and path.
    /// - Throws: 64 naming both.
    public static func distinct(_ files: [(flag: String, path: String)]) throws(PodiumError) {
        var seen: [String: (flag: String, path: String)] = [:]
        for file in files {
            let key = identity(of: file.path)
            if let first = seen[key] {
                throw .usage("\(first.flag) '\(first.path)' and \(file.flag) '\(file.path)' name the same file; "
                             + "give each output a file of its own")
            }
            seen[key] = file
        }
    }

    /// What makes two spellings of a path the same file: the device and inode of one that exists,
    /// otherwise the real path of its folder and its name.
    public static func identity(of path: String, links: Int = 0) -> String {
        if path == "-" { return "stdout" }
        if let status = FileStatus(path: path) { return "inode \(status.identity)" }
        // A symlink to a file not made yet names that file.
        if links < 8, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
            return identity(of: target.hasPrefix("/") ? target : folder(of: path) + "/" + target, links: links + 1)
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let real = realpath(folder(of: path), nil) else { return "path \(path)" }
        defer { free(real) }
        return "path " + String(cString: real) + "/" + name
    }

    /// The folder `path` is in: `.` for a bare name, `/` for a name at the root.
    public static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = path[..<slash]
        return folder.isEmpty ? "/" : String(folder)
    }
}
