import Glibc

/// What `stat(2)` says of a path: its kind, size and identity.
///
/// Here rather than in the modules that use it: where swift-nio is linked, the C `stat` struct is
/// claimed by whichever Foundation module imported the header first (CoreFoundation in a release
/// build, Dispatch in a debug one), and member-import visibility then refuses it.
public struct FileStatus: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case file, folder, other }

    public let kind: Kind
    public let size: Int
    /// The device and inode: equal for two names of one file.
    public let identity: String
    /// Its owner's user id, and its permission bits (`0o700`).
    public let owner: UInt32
    public let permissions: UInt32

    /// The status of `path` (following links), or `nil` when it does not exist or cannot be read.
    /// The corresponding C function is `stat`.
    public init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG: kind = .file
        case S_IFDIR: kind = .folder
        default: kind = .other
        }
        size = Int(status.st_size)
        identity = "\(status.st_dev):\(status.st_ino)"
        owner = status.st_uid
        permissions = status.st_mode & 0o7777
    }
}
