import Foundation
import PodiumCore
import PodiumX11

/// A private Xorg with the dummy driver (no GPU, no input devices) for one test: unlike Xvfb, its
/// screen grows and shrinks through RandR, as a real desktop's does. One monitor, `DUMMY0`, at the
/// mode asked for. Runs as root (Xorg allows it), on a display number it picks (`-displayfd`).
public final class XorgServer: Sendable {
    public let display: String
    private let process: ChildProcess
    private let folder: URL

    /// Starts Xorg, and sets `DUMMY0` to `width`x`height` (a mode the dummy driver knows:
    /// 640x480, 800x600, 1024x768, 1280x720 …) with the screen just as large.
    public init(width: Int = 1024, height: Int = 768) throws {
        folder = try Tools.temporaryFolder().appendingPathComponent("xorg")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("none"),
                                                withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("xorg.conf")
        try """
            Section "ServerFlags"
              Option "AutoAddDevices" "false"
              Option "AutoAddGPU" "false"
              Option "DontVTSwitch" "true"
            EndSection
            Section "Device"
              Identifier "dummy"
              Driver "dummy"
              VideoRam 256000
            EndSection
            Section "Monitor"
              Identifier "monitor"
              HorizSync 5.0-1000.0
              VertRefresh 5.0-200.0
            EndSection
            Section "Screen"
              Identifier "screen"
              Device "dummy"
              Monitor "monitor"
              DefaultDepth 24
              SubSection "Display"
                Depth 24
                Virtual 7680 4320
              EndSubSection
            EndSection
            """.write(to: config, atomically: true, encoding: .utf8)
        let numberFile = folder.appendingPathComponent("display")
        let (empty, log) = (folder.appendingPathComponent("none").path, folder.appendingPathComponent("log").path)
        process = try ChildProcess(["Xorg", "-config", config.path, "-configdir", empty, "-noreset", "-nolisten", "tcp",
                                    "-logfile", log, "-displayfd", "3"],
                                   environment: ChildProcess.environment([:]),
                                   files: [1: "/dev/null", 2: "/dev/null", 3: numberFile.path])
        guard let number = VirtualDisplay.displayNumber(in: numberFile, of: process) else {
            process.signal(SIGKILL)
            _ = process.waitForExit()
            throw TestFailure("Xorg with the dummy driver did not start (xserver-xorg-video-dummy installed?): "
                              + ((try? String(contentsOf: folder.appendingPathComponent("log"), encoding: .utf8))?
                                 .suffix(2_000) ?? ""))
        }
        display = ":\(number)"
        let mode = try Tools.run("xrandr", ["-display", display, "--output", "DUMMY0", "--mode", "\(width)x\(height)",
                                            "--fb", "\(width)x\(height)"])
        guard mode.status == 0 else { throw TestFailure("xrandr could not set \(width)x\(height): \(mode.stderr)") }
    }

    deinit {
        process.signal(SIGTERM)
        _ = process.waitForExit()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The monitors as `xrandr --listmonitors` lists them, one line each (`PODIUM-123 640/169x480/127+1024+0`).
    public func monitors() throws -> [String] {
        let listed = try Tools.run("xrandr", ["-display", display, "--listmonitors"])
        return listed.stdout.split(separator: "\n").dropFirst().map {
            $0.split(separator: " ").dropFirst().joined(separator: " ")
        }
    }

    /// The screen's size now, as `xdpyinfo` says it (`1024x768`).
    public func screenSize() throws -> String {
        let info = try Tools.run("xdpyinfo", ["-display", display])
        let line = info.stdout.split(separator: "\n").first { $0.contains("dimensions:") } ?? ""
        return line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
    }
}
