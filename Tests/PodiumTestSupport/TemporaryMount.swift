import Foundation

/// A small tmpfs for one test, unmounted when released.
public final class TemporaryMount {
    public let path: String

    /// Whether this process may mount (root in a sandbox that allows it).
    public static let permitted = (try? TemporaryMount(megabytes: 1)) != nil

    public init(megabytes: Int) throws {
        path = try Tools.temporaryFolder().path
        let mounted = try Tools.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path])
        guard mounted.status == 0 else { throw TestFailure("mount: \(mounted.stderr)") }
    }

    deinit { _ = try? Tools.run("/bin/umount", [path]) }
}
