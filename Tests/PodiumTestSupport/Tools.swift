public import Foundation
import PodiumCore
import Glibc

/// What a finished command left behind.
public struct CommandResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    public init(status: Int32, stdout: String, stderr: String) {
        (self.status, self.stdout, self.stderr) = (status, stdout, stderr)
    }
}

/// Runs external programs for tests: the built `podium`, and FFmpeg's tools as real peers.
public enum Tools {
    /// The podium the tests run: this package's build, or the one `PODIUM_BINARY` names (an
    /// installed package's, `/usr/bin/podium`), so the same tests judge what users install.
    public static var podium: URL {
        ProcessInfo.processInfo.environment["PODIUM_BINARY"].map { URL(fileURLWithPath: $0) } ?? built("podium")
    }

    /// An executable this package builds (`podium`, or a test's helper), beside the tests.
    public static func built(_ name: String) -> URL {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for folder in [here, here.deletingLastPathComponent()] {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug")
            .appendingPathComponent(name)
    }

    /// Starts `executable` with `arguments`; output is collected into temporary files.
    public static func start(_ executable: String, _ arguments: [String],
                             environment: [String: String] = [:]) throws -> RunningCommand {
        try RunningCommand(executable: executable, arguments: arguments, environment: environment)
    }

    /// The golden text `name` from the `Golden` folder beside the test file that asks. With
    /// `PODIUM_UPDATE_GOLDEN=1` in the environment, `actual` is written there first: the way to
    /// accept a deliberate change.
    public static func golden(_ name: String, actual: String, testFile: String = #filePath) throws -> String {
        let file = URL(fileURLWithPath: testFile).deletingLastPathComponent().appendingPathComponent("Golden/\(name)")
        if ProcessInfo.processInfo.environment["PODIUM_UPDATE_GOLDEN"] != nil {
            try actual.write(to: file, atomically: true, encoding: .utf8)
        }
        return try String(contentsOf: file, encoding: .utf8)
    }

    /// Runs `podium` to the end.
    /// - Parameter environment: more of it, such as a sound server's `PULSE_SERVER`.
    public static func podium(_ arguments: [String], display: String? = nil, environment more: [String: String] = [:],
                              timeout: TimeInterval = 60) throws -> CommandResult {
        var environment = ["COLUMNS": "80"].merging(more) { $1 }
        if let display { environment["DISPLAY"] = display }
        return try start(podium.path, arguments, environment: environment).wait(timeout: timeout)
    }

    /// Streams from a source into `recording` with `arguments`, takes the source away with
    /// `lose` 2 s into capture, and waits for the run to end.
    /// - Returns: how the run ended, and whether ffmpeg decodes the recording without a word.
    public static func streamLosingTheSource(_ arguments: [String], recording: String,
                                             environment: [String: String] = [:], lose: () -> Void)
        throws -> (result: CommandResult, decodes: Bool) {
        let run = try start(podium.path, ["stream"] + arguments + ["--to", recording], environment: environment)
        try run.waitForStderr(containing: "capturing")
        Thread.sleep(forTimeInterval: 2)
        lose()
        let result = try run.wait(timeout: 20)
        let decoded = try Tools.run("ffmpeg", ["-v", "error", "-i", recording, "-f", "null", "-"])
        return (result, decoded.status == 0 && decoded.stderr.isEmpty)
    }

    /// ffmpeg decodes all of `path` without a word (in the file's own time base: a variable rate
    /// above the one it guesses from the first frames would otherwise collide in its output's).
    public static func decodesCleanly(_ path: String) throws -> Bool {
        let result = try run("ffmpeg", ["-v", "error", "-i", path, "-enc_time_base", "-1", "-f", "null", "-"])
        return result.status == 0 && result.stderr.isEmpty
    }

    /// The `--stats-json` records of `kind` (`change`, `interval`) in the file at `path`.
    public static func statsRecords(_ path: String, kind: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["kind"] as? String == kind }
    }

    /// Runs a program from PATH to the end.
    public static func run(_ program: String, _ arguments: [String],
                           timeout: TimeInterval = 60) throws -> CommandResult {
        try start(program, arguments).wait(timeout: timeout)
    }

    /// How many video frames `ffprobe` decodes from `path`, and their size.
    public static func probe(_ path: String) throws -> (frames: Int, width: Int, height: Int, duration: Double?) {
        let result = try run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                         "-show_entries", "stream=nb_read_frames,width,height:format=duration",
                                         "-of", "default=nw=1", path])
        guard result.status == 0 else { throw TestFailure("ffprobe cannot read \(path): \(result.stderr)") }
        var fields: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return (Int(fields["nb_read_frames"] ?? "") ?? 0, Int(fields["width"] ?? "") ?? 0,
                Int(fields["height"] ?? "") ?? 0, Double(fields["duration"] ?? ""))
    }

    /// Frame `index` of `path`, decoded by `ffmpeg` to raw pixels (planar YUV 4:2:0 by default).
    public static func decodeFrame(_ path: String, index: Int, pixelFormat: String = "yuv420p") throws -> [UInt8] {
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("podium-frame-\(UUID().uuidString).rgb")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try run("ffmpeg", ["-v", "error", "-y", "-i", path, "-vf", "select=eq(n\\,\(index))",
                                        "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", pixelFormat, output.path])
        guard result.status == 0 else { throw TestFailure("ffmpeg cannot decode \(path): \(result.stderr)") }
        return [UInt8](try Data(contentsOf: output))
    }

    /// Every frame of `path`, decoded by `ffmpeg` to raw pixels of `pixelFormat` (one byte a pixel, such as `gray`).
    /// Each frame once: raw output would otherwise be made constant-rate, a frame repeated where
    /// damage-driven capture left a gap.
    public static func decodeFrames(_ path: String, width: Int, height: Int, pixelFormat: String) throws -> [[UInt8]] {
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("podium-frames-\(UUID().uuidString).raw")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try run("ffmpeg", ["-v", "error", "-y", "-i", path, "-fps_mode", "passthrough", "-f", "rawvideo",
                                        "-pix_fmt", pixelFormat, output.path])
        guard result.status == 0 else { throw TestFailure("ffmpeg cannot decode \(path): \(result.stderr)") }
        let bytes = [UInt8](try Data(contentsOf: output))
        let frameBytes = width * height
        return stride(from: 0, to: bytes.count - frameBytes + 1, by: frameBytes)
            .map { Array(bytes[$0..<$0 + frameBytes]) }
    }

    /// The presentation time of every frame `ffmpeg` decodes from `path`, in seconds.
    public static func frameTimes(_ path: String) throws -> [Double] {
        let frames = try run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                                         "-of", "csv=p=0", path])
        return frames.stdout.split(separator: "\n").compactMap {
            Double($0.trimmingCharacters(in: .init(charactersIn: ", ")))
        }
    }

    /// Every frame of `path` with its time: decoded by ffmpeg to grey pixels, scaled to `size` by
    /// its area filter, each frame once.
    public static func greyFrames(_ path: String, size: (width: Int, height: Int))
        throws -> [(time: Double, pixels: [UInt8])] {
        try timedFrames(path, size: size, pixelFormat: "gray", bytesPerPixel: 1)
    }

    /// The status code of a request to `url` (POSTing `body` when given), as Python's urllib
    /// makes it; 0 when nothing answered.
    public static func httpStatus(_ url: String, body: String? = nil) throws -> Int {
        let script = """
            import sys, urllib.request, urllib.error
            body = sys.argv[2].encode() if len(sys.argv) > 2 else None
            try:
                print(urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=body), timeout=10).status)
            except urllib.error.HTTPError as error:
                print(error.code)
            except OSError:
                print(0)
            """
        let result = try run("python3", ["-c", script, url] + (body.map { [$0] } ?? []))
        return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Every frame of `path` with its time and mean grey level (0 to 255), and the span of time
    /// from the first to the last frame whose level `marked` picks (a blank, a flash): `nil` when none is.
    public static func greyLevels(_ path: String, marked: (Double) -> Bool) throws
        -> (levels: [(time: Double, mean: Double)], span: ClosedRange<Double>?) {
        let levels = try greyFrames(path, size: (width: 32, height: 24)).map { frame in
            (time: frame.time, mean: Double(frame.pixels.reduce(0) { $0 + Int($1) }) / Double(frame.pixels.count))
        }
        let times = levels.filter { marked($0.mean) }.map(\.time)
        // A picture shows until the next: a still one is not sent again to a file.
        let ends = times.last.map { last in levels.first { $0.time > last }?.time ?? last }
        return (levels, times.first.flatMap { first in ends.map { first...$0 } })
    }

    /// Every frame of `path` with its time, decoded by ffmpeg to RGB (3 bytes a pixel) at its own
    /// size, each frame once.
    public static func rgbFrames(_ path: String, size: (width: Int, height: Int))
        throws -> [(time: Double, pixels: [UInt8])] {
        try timedFrames(path, size: size, pixelFormat: "rgb24", bytesPerPixel: 3)
    }

    /// The mean colour of the centre of each frame of `path` (RGB), with the frame's time.
    public static func centreColours(_ path: String) throws -> [(time: Double, rgb: [Int])] {
        try rgbFrames(path, size: (width: 64, height: 36)).map { frame in
            let centre = (18 * 64 + 32) * 3
            return (frame.time, (0..<3).map { Int(frame.pixels[centre + $0]) })
        }
    }

    private static func timedFrames(_ path: String, size: (width: Int, height: Int), pixelFormat: String,
                                    bytesPerPixel: Int) throws -> [(time: Double, pixels: [UInt8])] {
        let times = try frameTimes(path)
        let raw = path + "." + pixelFormat
        defer { try? FileManager.default.removeItem(atPath: raw) }
        let decoded = try run("ffmpeg", ["-v", "error", "-y", "-i", path, "-fps_mode", "passthrough",
                                         "-vf", "scale=\(size.width):\(size.height):flags=area",
                                         "-f", "rawvideo", "-pix_fmt", pixelFormat, raw])
        guard decoded.status == 0 else { throw TestFailure("ffmpeg cannot decode \(path): \(decoded.stderr)") }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let frameBytes = size.width * size.height * bytesPerPixel
        guard bytes.count == frameBytes * times.count else {
            throw TestFailure("\(path): \(bytes.count / frameBytes) frames decoded, \(times.count) times")
        }
        return times.enumerated().map { index, time in
            (time, Array(bytes[(index * frameBytes)..<((index + 1) * frameBytes)]))
        }
    }

    /// The summary object of a `--stats-json` file (its last line).
    public static func statsSummary(_ path: String) throws -> [String: Any] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        guard let last = lines.last,
              let summary = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any] else {
            throw TestFailure("\(path) has no summary")
        }
        return summary
    }

    /// `pattern` converted by `ffmpeg` to planar YUV 4:2:0 at `width`×`height` (its own size by
    /// default): the reference a lossy output is measured against.
    public static func reference(_ pattern: TestPattern, width: Int? = nil, height: Int? = nil) throws -> [UInt8] {
        let input = FileManager.default.temporaryDirectory
            .appendingPathComponent("podium-ref-\(UUID().uuidString).bgra")
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("podium-ref-\(UUID().uuidString).yuv")
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: output)
        }
        try Data(pattern.bgra).write(to: input)
        let size = "\(width ?? pattern.width)x\(height ?? pattern.height)"
        let result = try run("ffmpeg", ["-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "bgra",
                                        "-s", "\(pattern.width)x\(pattern.height)", "-i", input.path,
                                        "-vf", "scale=\(size)", "-f", "rawvideo", "-pix_fmt", "yuv420p", output.path])
        guard result.status == 0 else { throw TestFailure("ffmpeg cannot convert the reference: \(result.stderr)") }
        return [UInt8](try Data(contentsOf: output))
    }

    /// The whole screen of `display` as BGRA, grabbed by `ffmpeg -f x11grab` without the cursor,
    /// with the alpha byte set to 255.
    public static func grabScreen(_ display: String, width: Int, height: Int) throws -> [UInt8] {
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("podium-grab-\(UUID().uuidString).bgra")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try run("ffmpeg", ["-v", "error", "-y", "-f", "x11grab", "-draw_mouse", "0",
                                        "-video_size", "\(width)x\(height)", "-i", display,
                                        "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "bgra", output.path])
        guard result.status == 0 else { throw TestFailure("ffmpeg cannot grab \(display): \(result.stderr)") }
        var bytes = [UInt8](try Data(contentsOf: output))
        for index in stride(from: 3, to: bytes.count, by: 4) { bytes[index] = 255 }
        return bytes
    }

    /// Runs `xrandr` on `display` (to add monitors or change the resolution), failing on an error.
    public static func xrandr(_ display: String, _ arguments: String...) throws {
        let result = try run("xrandr", ["-display", display] + arguments)
        guard result.status == 0 else {
            throw TestFailure("xrandr \(arguments.joined(separator: " ")): \(result.stderr)")
        }
    }

    /// A 640x240 display split into two 320x240 RandR monitors side by side: LEFT, the laptop's
    /// screen, and RIGHT, the projector.
    public static func laptopAndProjector() throws -> XvfbServer {
        let server = try XvfbServer(width: 640, height: 240)
        try xrandr(server.display, "--setmonitor", "LEFT", "320/85x240/64+0+0", "none")
        try xrandr(server.display, "--setmonitor", "RIGHT", "320/85x240/64+320+0", "none")
        return server
    }

    /// A fresh empty folder for one test's files.
    public static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("podium-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// `podium scene` drawing `kind` (moving content) on `display` until stopped.
    public static func scene(_ kind: String = "video", on display: String, fps: Int = 30) throws -> RunningCommand {
        try start(podium.path, ["scene", "--display", display, "--kind", kind, "--fps", "\(fps)", "--quiet"])
    }

    /// A port number free for TCP and UDP on every address now, chosen at random below Linux's
    /// ephemeral range (32768–60999): the kernel hands ports there to outgoing connections, and one
    /// can take the port between its choice and the test's server listening (a CI run's viewer
    /// found its port in use, beside another lane's browser and servers).
    public static func freePort() -> Int {
        var port = 0
        for _ in 0..<100 {
            port = Int.random(in: 20_000..<32_768)
            let free = [SOCK_STREAM, SOCK_DGRAM].allSatisfy { type in
                withSocket(type, host: "0.0.0.0", port: port) { bind($0, $1, $2) == 0 }
            }
            if free { break }
        }
        return port
    }

    /// What `body` says of a new IPv4 socket of `type` and the address `host`:`port` (the socket
    /// is closed after); false when no socket can be made.
    static func withSocket(_ type: __socket_type, host: String, port: Int,
                           _ body: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Bool) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(type.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }
}

/// A program started by a test; its output goes to temporary files so pipes never fill up.
public final class RunningCommand: Sendable {
    private let child: ChildProcess
    private let name: String
    private let outURL: URL
    private let errURL: URL

    init(executable: String, arguments: [String], environment: [String: String]) throws {
        let folder = FileManager.default.temporaryDirectory
        outURL = folder.appendingPathComponent("podium-out-\(UUID().uuidString)")
        errURL = folder.appendingPathComponent("podium-err-\(UUID().uuidString)")
        name = ([executable] + arguments).joined(separator: " ")
        child = try ChildProcess([executable] + arguments, environment: ChildProcess.environment(environment),
                                 files: [1: outURL.path, 2: errURL.path])
    }

    deinit {
        try? FileManager.default.removeItem(at: outURL)
        try? FileManager.default.removeItem(at: errURL)
    }

    public var isRunning: Bool { child.isRunning }

    /// The program's process id.
    public var pid: pid_t { child.pid }

    /// Standard output so far.
    public var stdoutSoFar: String { (try? String(contentsOf: outURL, encoding: .utf8)) ?? "" }

    /// Standard error so far.
    public var stderrSoFar: String { (try? String(contentsOf: errURL, encoding: .utf8)) ?? "" }

    /// Waits until standard error contains `text` (`times` times).
    public func waitForStderr(containing text: String, times: Int = 1, timeout: TimeInterval = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while stderrSoFar.components(separatedBy: text).count - 1 < times {
            guard Date() < deadline, child.isRunning else {
                throw TestFailure("never printed '\(text)'; stderr: \(stderrSoFar)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    public func signal(_ number: Int32) { child.signal(number) }

    /// Ctrl-C, and the end that follows.
    public func interrupt(timeout: TimeInterval = 20) throws -> CommandResult {
        signal(SIGINT)
        return try wait(timeout: timeout)
    }

    /// Waits for the end (killing the program after `timeout`).
    public func wait(timeout: TimeInterval = 60) throws -> CommandResult {
        let deadline = Date().addingTimeInterval(timeout)
        while child.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if child.isRunning {
            child.signal(SIGKILL)
            _ = child.waitForExit()
            throw TestFailure("\(name) ran past \(timeout) s; stderr: \(stderrSoFar)")
        }
        return CommandResult(
            status: child.waitForExit(),
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: stderrSoFar
        )
    }
}
