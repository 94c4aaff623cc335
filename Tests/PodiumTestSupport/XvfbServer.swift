import Foundation
import PodiumCore
import PodiumX11
import Synchronization

/// A private X server for one test: Xvfb on a display number it picks itself (`-displayfd`).
/// Stopped when the value is released.
public final class XvfbServer: @unchecked Sendable {
    public let display: String
    public let width: Int
    public let height: Int
    private let server: VirtualDisplay

    /// - Parameters:
    ///   - depth: the screen's bits per pixel (24 for the usual TrueColor, 16 to test refusal).
    ///   - arguments: more Xvfb arguments, such as `["-extension", "MIT-SHM"]`.
    ///   - display: a display to start on again (one an earlier server picked), to test hot-plug.
    public init(width: Int = 640, height: Int = 480, depth: Int = 24, arguments: [String] = [],
                display: String? = nil) throws {
        server = try VirtualDisplay(size: PixelSize(width: width, height: height), depth: depth, arguments: arguments,
                                    display: display)
        self.display = server.display
        self.width = width
        self.height = height
    }

    /// A display number no server uses, far above those `-displayfd` hands out (it takes the lowest
    /// free), so a test can start a server on it later without racing other tests.
    public static func unusedDisplay() -> String {
        while true {
            let number = Int.random(in: 500..<5000)
            if !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock")
                && !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") {
                return ":\(number)"
            }
        }
    }

    /// Stops the server now (to test what happens when the display goes away).
    public func stop() { server.stop() }
}

/// A precondition of a test that did not hold.
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One Xvfb for the in-process tests that run at once: started by the first to borrow it,
/// stopped when the last one gives it back (a static server would outlive the test process).
public enum SharedXvfb {
    private static let state = Mutex<(server: XvfbServer?, users: Int)>((nil, 0))

    /// Runs `body` with a 320x240 display that others may be using at the same time.
    public static func borrow<T>(_ body: (String) async throws -> T) async throws -> T {
        let display = try state.withLock { state throws -> String in
            let server = try state.server ?? XvfbServer(width: 320, height: 240)
            state = (server, state.users + 1)
            return server.display
        }
        defer {
            state.withLock { state in
                state.users -= 1
                if state.users == 0 { state.server = nil }
            }
        }
        return try await body(display)
    }
}
