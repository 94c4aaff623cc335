import Foundation

/// A private X server for one test: Xvfb on a display number it picks itself (`-displayfd`).
/// Stopped when the value is released.
public final class XvfbServer: @unchecked Sendable {
    public let display: String
    public let width: Int
    public let height: Int
    private let process: ChildProcess

    /// - Parameters:
    ///   - depth: the screen's bits per pixel (24 for the usual TrueColor, 16 to test refusal).
    ///   - arguments: more Xvfb arguments, such as `["-extension", "MIT-SHM"]`.
    ///   - display: a display to start on again (one an earlier server picked), to test hot-plug.
    public init(width: Int = 640, height: Int = 480, depth: Int = 24, arguments: [String] = [], display: String? = nil) throws {
        let numberFile = FileManager.default.temporaryDirectory.appendingPathComponent("podium-xvfb-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: numberFile) }
        // Xvfb writes the display number it chose (or was given) to fd 3, opened on a file, once clients may connect.
        let process = try ChildProcess(
            ["Xvfb"] + (display.map { [$0] } ?? []) + ["-displayfd", "3", "-screen", "0", "\(width)x\(height)x\(depth)", "-nolisten", "tcp", "-noreset"] + arguments,
            environment: ChildProcess.environment([:]),
            files: [1: "/dev/null", 2: "/dev/null", 3: numberFile.path]
        )
        var number: Int?
        let deadline = Date().addingTimeInterval(15)
        while number == nil, Date() < deadline, process.isRunning {
            if let text = try? String(contentsOf: numberFile, encoding: .utf8), text.hasSuffix("\n") {
                number = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            } else {
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        guard let number else {
            process.signal(SIGKILL)
            throw TestFailure("Xvfb did not report a display number")
        }
        self.display = ":\(number)"
        self.width = width
        self.height = height
        self.process = process
    }

    deinit { stop() }

    /// A display number no server uses, far above those `-displayfd` hands out (it takes the lowest
    /// free), so a test can start a server on it later without racing other tests.
    public static func unusedDisplay() -> String {
        while true {
            let number = Int.random(in: 500..<5000)
            if !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock") && !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") {
                return ":\(number)"
            }
        }
    }

    /// Stops the server now (to test what happens when the display goes away).
    public func stop() {
        guard process.isRunning else { return }
        process.signal(SIGTERM)
        _ = process.waitForExit()
    }
}

/// A precondition of a test that did not hold.
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
