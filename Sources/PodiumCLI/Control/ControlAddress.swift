import Foundation
import PodiumCore

/// Where control sockets live: `$XDG_RUNTIME_DIR/podium/<pid>.sock` (or `/tmp/podium-<uid>/`
/// without a runtime directory), in a folder only this user may enter.
enum ControlAddress {
    /// The folder of this user's control sockets.
    static var directory: String {
        if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !runtime.isEmpty,
           FileStatus(path: runtime)?.kind == .folder {
            return runtime + "/podium"
        }
        return "/tmp/podium-\(getuid())"
    }

    /// The socket of the Podium with process id `pid`.
    static func path(pid: Int32) -> String { "\(directory)/\(pid).sock" }

    /// Makes the folder if it is missing, and checks that it is this user's alone.
    /// - Throws: 73 when it cannot be made, or someone else could reach into it.
    static func prepareDirectory() throws(PodiumError) {
        let folder = directory
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw .cannotCreate("--control: cannot make \(folder): \(String(cString: strerror(errno)))")
        }
        guard let status = FileStatus(path: folder), status.kind == .folder, status.owner == getuid(),
              status.permissions & 0o077 == 0 else {
            throw .cannotCreate("--control: \(folder) is not a folder of this user's alone; remove it, or pass "
                                + "--no-control")
        }
    }

    /// The socket address of `path`, or `nil` when it is longer than a socket path can be.
    static func socketAddress(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes + [0]) }
        return address
    }

    /// The Podium runs of this user that have a control socket, by process id: those whose process
    /// is gone are left out.
    static func running() -> [Int32] {
        sockets().filter(isAlive).sorted()
    }

    /// Removes the sockets left by runs that could not remove their own (killed with SIGKILL).
    static func removeLeftovers() {
        for pid in sockets() where !isAlive(pid) { unlink(path(pid: pid)) }
    }

    /// The process ids of the sockets in the folder.
    private static func sockets() -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name in name.hasSuffix(".sock") ? Int32(name.dropLast(5)) : nil }
    }

    private static func isAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
