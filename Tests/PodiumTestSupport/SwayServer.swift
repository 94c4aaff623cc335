public import Foundation

/// A headless sway (wlroots, drawing with pixman, no input devices): a real Wayland desktop for
/// the tests, in a runtime folder of its own. sway will not run as root, so it runs as the
/// unprivileged user `Scripts/bootstrap` makes; Podium, as root, reaches its socket by path.
public final class SwayServer: Sendable {
    /// The user sway runs as.
    public static let user = "podium-sway"
    /// The compositor's socket, by path: what `--display` or `$WAYLAND_DISPLAY` takes.
    public let display: String
    private let folder: URL
    private let ipcSocket: String
    /// sway's own process (not `runuser`'s): the socket's name carries it.
    public let pid: pid_t
    private let launcher: RunningCommand

    /// Starts sway with one output of `width`x`height` (`HEADLESS-1`), its background grey.
    public init(width: Int = 1280, height: Int = 720) throws {
        let folder = try Tools.temporaryFolder().appendingPathComponent("sway-runtime")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.hand(folder.path, to: Self.user)
        let config = folder.appendingPathComponent("config")
        try """
            output HEADLESS-1 resolution \(width)x\(height) position 0 0 bg #404040 solid_color
            xwayland disable
            default_border none
            """.write(to: config, atomically: true, encoding: .utf8)
        launcher = try Tools.start("runuser", ["-u", Self.user, "--", "env", "-i", "PATH=/usr/bin:/bin",
                                               "HOME=\(folder.path)", "XDG_RUNTIME_DIR=\(folder.path)",
                                               "WLR_BACKENDS=headless", "WLR_LIBINPUT_NO_DEVICES=1",
                                               "WLR_RENDERER=pixman", "sway", "-c", config.path])
        self.folder = folder
        // sway takes the first free wayland-N of its runtime folder: wayland-1 in a new one.
        display = folder.appendingPathComponent("wayland-1").path
        var socket: String?
        for _ in 0..<200 where socket == nil {
            Thread.sleep(forTimeInterval: 0.025)
            socket = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?
                .first { $0.hasPrefix("sway-ipc.") && $0.hasSuffix(".sock") }
        }
        guard let socket, let pid = pid_t(socket.split(separator: ".").dropLast().last ?? ""),
              FileManager.default.fileExists(atPath: display) else {
            _ = try? launcher.interrupt(timeout: 5)
            throw TestFailure("sway did not start: \((try? launcher.wait(timeout: 1))?.stderr ?? "")")
        }
        ipcSocket = folder.appendingPathComponent(socket).path
        self.pid = pid
        // Ready when it answers, with its output configured (and its background drawn).
        for _ in 0..<100 where (try? swaymsg("-t", "get_outputs"))?.contains("HEADLESS-1") != true {
            Thread.sleep(forTimeInterval: 0.05)
        }
        Thread.sleep(forTimeInterval: 0.3)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Makes `path` the user's alone (mode 0700), as a runtime folder must be.
    private static func hand(_ path: String, to user: String) throws {
        let owned = try Tools.run("chown", ["\(user):", path])
        guard owned.status == 0 else { throw TestFailure("chown \(path) to \(user): \(owned.stderr)") }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path)
    }

    /// Runs `swaymsg` with `arguments` against this sway; returns what it printed.
    @discardableResult
    public func swaymsg(_ arguments: String...) throws -> String {
        let result = try Tools.run("runuser", ["-u", Self.user, "--", "env", "SWAYSOCK=\(ipcSocket)", "swaymsg"]
                                   + arguments, timeout: 10)
        guard result.status == 0 else { throw TestFailure("swaymsg \(arguments): \(result.stdout)\(result.stderr)") }
        return result.stdout
    }

    /// Paints `output`'s background one colour (`#RRGGBB`), and waits until it is drawn.
    public func paint(_ colour: String, output: String = "HEADLESS-1") throws {
        try swaymsg("output \(output) bg \(colour) solid_color")
        Thread.sleep(forTimeInterval: 0.3)
    }

    /// Opens a window titled `title` (a foot terminal running `command`, all of it `colour`,
    /// `RRGGBB`), floating at `rect`, and waits until sway shows it there.
    public func openWindow(_ title: String, colour: String, at rect: (x: Int, y: Int, width: Int, height: Int),
                           command: String = "sleep 600") throws {
        try swaymsg("exec foot --title '\(title)' -o colors.background=\(colour) -o cursor.color=\(colour) "
                    + "-o colors.foreground=\(colour) \(command)")
        for _ in 0..<100 where (try? swaymsg("-t", "get_tree"))?.contains("\"\(title)\"") != true {
            Thread.sleep(forTimeInterval: 0.05)
        }
        try move(title, to: rect)
    }

    /// Moves and resizes the window titled `title`, floating, to `rect` of the layout (another
    /// output's, if it lies there), and waits until it is drawn.
    public func move(_ title: String, to rect: (x: Int, y: Int, width: Int, height: Int)) throws {
        try swaymsg("[title=\"\(title)\"] floating enable, resize set \(rect.width) \(rect.height), "
                    + "move absolute position \(rect.x) \(rect.y)")
        Thread.sleep(forTimeInterval: 0.3)
    }

    /// Ends sway now (to test what happens when the compositor goes away).
    public func stop() {
        kill(pid, SIGTERM)
        _ = try? launcher.wait(timeout: 10)
    }
}
