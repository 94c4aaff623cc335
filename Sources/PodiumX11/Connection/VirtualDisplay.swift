public import Foundation
public import PodiumCore

/// A private X server (Xvfb) on a display number it picks itself (`-displayfd`), for benchmarks
/// and tests. Stopped when the value is released.
public final class VirtualDisplay: Sendable {
    public let display: String
    public let size: PixelSize
    private let process: ChildProcess

    /// Starts the server and returns once clients can connect.
    /// - Parameters:
    ///   - depth: bits per pixel (24 for the usual TrueColor).
    ///   - arguments: more Xvfb arguments, such as `["-extension", "MIT-SHM"]`.
    ///   - display: a display number to take (default: the lowest free one).
    /// - Throws: `.unavailable` when Xvfb is missing or does not come up within 15 s.
    public init(size: PixelSize, depth: Int = 24, arguments: [String] = [], display: String? = nil)
        throws(PodiumError) {
        let numberFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("podium-xvfb-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: numberFile) }
        // Xvfb writes the display number it chose (or was given) to fd 3, opened on a file, once
        // clients may connect.
        let process = try ChildProcess(
            ["Xvfb"] + (display.map { [$0] } ?? []) + ["-displayfd", "3", "-screen", "0", "\(size)x\(depth)",
                                                       "-nolisten", "tcp", "-noreset"] + arguments,
            environment: ChildProcess.environment([:]),
            files: [1: "/dev/null", 2: "/dev/null", 3: numberFile.path]
        )
        guard let number = Self.displayNumber(in: numberFile, of: process) else {
            process.signal(SIGKILL)
            throw .unavailable("the private X server (Xvfb) did not start; is the xvfb package installed?")
        }
        self.display = ":\(number)"
        self.size = size
        self.process = process
    }

    deinit { stop() }

    /// The display number an X server started with `-displayfd` wrote to `file` (its fd 3) once
    /// clients may connect; `nil` when it stopped or said nothing within `seconds`.
    public static func displayNumber(in file: URL, of process: ChildProcess, within seconds: Double = 15) -> Int? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, process.isRunning {
            if let text = try? String(contentsOf: file, encoding: .utf8), text.hasSuffix("\n") {
                return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }

    /// The server's process, to account for its CPU time.
    public var pid: pid_t { process.pid }

    /// Stops the server now.
    public func stop() {
        guard process.isRunning else { return }
        process.signal(SIGTERM)
        _ = process.waitForExit()
    }
}
