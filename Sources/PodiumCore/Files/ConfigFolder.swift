import Foundation

/// Where Podium keeps what outlives a run (the viewer's certificate, the desktop's remembered
/// choice of screen): `$XDG_CONFIG_HOME/podium`, or `~/.config/podium`.
public enum ConfigFolder {
    public static var path: String {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return base + "/podium"
    }

    /// Writes `text` to `file` whole or not at all (a copy renamed over it), in `folder`, which is
    /// made readable by its owner only when it is not there.
    public static func write(_ text: String, to file: String, in folder: String = path, permissions: Int) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let target = folder + "/" + file, temporary = target + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8),
                                             attributes: [.posixPermissions: permissions]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary])
        }
        guard rename(temporary, target) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
