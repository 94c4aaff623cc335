import Foundation
import PodiumTestSupport
import Testing

/// Random command lines of `stream` and `mirror`, of valid and invalid flags and values, seeded
/// and reproducible: Podium
/// never crashes (no exit above 128 but 130, no "Fatal error"), and a refusal (64, 69, 73)
/// creates nothing. `PODIUM_FUZZ_SEED=N` replays one batch.
@Suite struct CommandLineFuzzTests {
    /// Each option with values it takes and values it must refuse; no values for a flag.
    static let options: [(name: String, valid: [String], invalid: [String])] = [
        ("--fps", ["30", "5", "60"], ["0", "-1", "1000", "abc", "2.5", ""]),
        ("--size", ["320x240", "64x48", "7x5"], ["0x0", "-2x2", "16384x16384", "abc"]),
        ("--max-size", ["200", "100"], ["0", "-5", "x"]),
        ("--scale", ["0.5", "2"], ["-1", "9", "abc"]),
        ("--region", ["100x100+0+0", "1x1+0+0", "8x8+312+232"], ["400x400+0+0", "-10x10+0+0", "10x10+-1+0", "abc"]),
        ("--bitrate", ["500k", "2M"], ["-5M", "lots", "0"]),
        ("--keyint", ["1s", "250ms"], ["-1s", "0", "never"]),
        ("--codec", ["h264", "hevc", "mjpeg"], ["divx"]),
        ("--preset", ["ultrafast"], ["warp9"]),
        ("--duration", ["1s", "500ms"], ["-1s", "0", "x"]),
        ("--frames", ["3", "1"], ["-5", "0", "x"]),
        ("--idle-fps", ["1", "5"], ["-1", "0"]),
        ("--monitor", ["primary", "0"], ["HDMI-9", "-1"]),
        ("--stats-json", ["s.jsonl", "-", "s"], ["out.mkv", "/proc/s.json", "nofolder/s.json"]),
        ("--scale-filter", ["box", "lanczos"], ["bogus"]),
        ("--no-cursor", [], []), ("--constant-fps", [], []), ("--quiet", [], []), ("--overwrite", [], []),
        ("--no-shm", [], []),
        ("--bogus", [], []), ("-o", [], ["x.mkv"]),
    ]

    /// Options of `podium mirror` alone; `TARGET` stands for a second display it can show on.
    static let mirrorOptions: [(name: String, valid: [String], invalid: [String])] = [
        ("--on-display", ["TARGET"], [":9999", "nonsense"]),
        ("--fit", ["contain", "cover", "stretch"], ["bogus"]),
        ("--background", ["#202020", "white"], ["#12", "red!"]),
        ("--pip", ["top-right"], ["middle"]),
        ("--pip-size", ["64x64", "160x90"], ["10x10", "0x0", "-64x64"]),
        ("--windowed", [], []),
        ("--on", ["0", "HDMI-9"], []),
    ]

    static let outputs = (
        valid: ["out.mkv", "out.mp4", "out.ts", "udp://127.0.0.1:45999", "sub.mkv"],
        invalid: ["./out.mkv", "udp://256.1.1.1:5000", "out.avi", "out", "tcp://127.0.0.1:1", "/sys/x.mkv",
                  "nofolder/x.mkv",
                  "udp://no-such-host.invalid:5000"]
    )

    /// One random command line: a few options, and usually one or two outputs; half of them hold
    /// only values that should work.
    static func commandLine(using generator: inout SeededGenerator) -> [String] {
        let onlyValid = Bool.random(using: &generator)
        func pick(_ valid: [String], _ invalid: [String]) -> String? {
            (onlyValid ? valid : valid + invalid).randomElement(using: &generator)
        }
        let mirror = Int.random(in: 0..<4, using: &generator) == 0
        var arguments = [mirror ? "mirror" : "stream", "--duration", "700ms"]
        for _ in 0..<Int.random(in: 0...3, using: &generator) {
            let table = mirror && Bool.random(using: &generator) ? mirrorOptions : options
            guard let option = table.randomElement(using: &generator) else { continue }
            if onlyValid && (option.name == "--bogus" || option.name == "-o") { continue }
            arguments.append(option.name)
            if let value = pick(option.valid, option.invalid) { arguments.append(value) }
        }
        for _ in 0..<((mirror ? [0, 0, 1] : [0, 1, 1, 1, 1, 1, 2, 2]).randomElement(using: &generator) ?? 1) {
            arguments += ["--to", pick(outputs.valid, outputs.invalid) ?? "out.mkv"]
        }
        return arguments
    }

    @Test(arguments: 0..<4)
    func neverCrashesAndRefusesCleanly(batch: UInt64) throws {
        let seed = ProcessInfo.processInfo.environment["PODIUM_FUZZ_SEED"].flatMap(UInt64.init) ?? 2026_1123 + batch
        var generator = SeededGenerator(state: seed)
        let server = try XvfbServer(width: 320, height: 240)
        let target = try XvfbServer(width: 320, height: 240)
        var codes: [Int32: Int] = [:]
        for run in 0..<60 {
            let arguments = Self.commandLine(using: &generator).map { $0 == "TARGET" ? target.display : $0 }
            let folder = try Tools.temporaryFolder()
            let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
                .joined(separator: " ")
            let command = "cd '\(folder.path)' && exec '\(Tools.podium.path)' \(quoted) >/dev/null"
            let result = try Tools.start("/bin/bash", ["-c", command], environment: ["DISPLAY": server.display])
                .wait(timeout: 30)
            codes[result.status, default: 0] += 1
            let context = "seed \(seed) run \(run): podium \(arguments.joined(separator: " ")) -> \(result.status): "
                + result.stderr.prefix(300)
            #expect(result.status < 128 || result.status == 130, "\(context)")
            #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("crashed"), "\(context)")
            if [64, 69, 73].contains(result.status) {
                let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                #expect(left.isEmpty, "nothing created: \(context)")
            }
            try? FileManager.default.removeItem(at: folder)
        }
        let counts = codes.sorted { $0.key < $1.key }.map { "exit \($0.key): \($0.value)" }.joined(separator: ", ")
        print("command-line fuzz, seed \(seed): 60 runs; \(counts)")
    }
}
