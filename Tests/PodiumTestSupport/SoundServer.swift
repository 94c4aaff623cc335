public import Foundation
import Synchronization

/// A private sound server for one test: PipeWire with its PulseAudio interface, started by
/// `Scripts/sound-server` in a runtime folder of its own, optionally playing a tone into its
/// default output (as a desktop playing sound would). Stopped when released.
public final class SoundServer: Sendable {
    public let folder: URL
    private let tone: Int?
    private let secondTone: Int?
    private let process = Mutex<RunningCommand?>(nil)

    /// The server's address, as `PULSE_SERVER` (or a library's connection) takes it.
    public var address: String { "unix:\(folder.path)/pulse/native" }

    /// What a client needs in its environment to reach this server.
    public var environment: [String: String] { ["PULSE_SERVER": address] }

    /// - Parameters:
    ///   - tone: a sine of this many hertz plays into the default output all along.
    ///   - secondTone: a sine of this many hertz plays into a second output, whose monitor is
    ///     the source `second.monitor`.
    public init(tone: Int? = nil, secondTone: Int? = nil) throws {
        folder = try Tools.temporaryFolder().appendingPathComponent("sound")
        self.tone = tone
        self.secondTone = secondTone
        try start()
    }

    deinit { stop() }

    /// Starts the server (again, after `stop`, in the same folder) and waits until it answers.
    public func start() throws {
        let script = Tools.repository.appendingPathComponent("Scripts/sound-server").path
        let tones = (tone.map { ["--tone", "\($0)"] } ?? []) + (secondTone.map { ["--second-tone", "\($0)"] } ?? [])
        let server = try Tools.start(script, ["--dir", folder.path] + tones)
        process.withLock { $0 = server }
        try server.waitForStderr(containing: "sound-server: ready", timeout: 30)
    }

    /// What the server holds now and what its tone players said: for a test whose tone went silent.
    public func state() -> String {
        let list = { (what: String) in
            let pactl = try? Tools.start("pactl", ["list", "short", what], environment: self.environment)
            return (try? pactl?.wait(timeout: 10).stdout) ?? ""
        }
        let (streams, sinks) = (list("sink-inputs"), list("sinks"))
        let players = (try? String(contentsOf: folder.appendingPathComponent("player.log"), encoding: .utf8)) ?? ""
        return "sound server: streams [\(streams)] outputs [\(sinks)] players [\(players)]"
    }

    /// Stops the server and everything it started (to test what happens when it goes away).
    public func stop() {
        guard let server = process.withLock({ current in defer { current = nil }; return current }) else { return }
        _ = try? server.interrupt(timeout: 10)
    }
}

extension Tools {
    /// The sound of `path` (its first sound stream), mixed to one channel at 48 kHz.
    public static func decodeSound(_ path: String) throws -> [Float] {
        let output = try temporaryFolder().appendingPathComponent("sound.f32")
        let result = try run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-ar", "48000",
                                        "-f", "f32le", "-y", output.path])
        guard result.status == 0 else {
            throw TestFailure("ffmpeg cannot decode the sound of \(path): \(result.stderr)")
        }
        let data = try Data(contentsOf: output)
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// The power of the strongest tone within 1 % of `hertz` in `samples` (48 kHz): a sound
    /// server's clock may run a few tenths of a percent off the monotonic one, and Podium follows
    /// it, so the tone it recorded may be that much off too.
    public static func tonePower(near hertz: Double, in samples: ArraySlice<Float>) -> Double {
        stride(from: hertz * 0.99, through: hertz * 1.01, by: max(0.5, hertz / 2_000))
            .map { power(of: $0, in: samples) }.max() ?? 0
    }

    /// The median of `tonePower` over each 20 ms of `samples`: a tone through a loaded machine's
    /// sound server skips or repeats a few milliseconds here and there (a CI run heard two thirds
    /// of a tone's level with only a third of its tenths of a second in phase), and one measure
    /// over a longer time would add the pieces out of phase and see little of a tone that played.
    /// A 20 ms window tells frequencies 50 Hz apart only: a test that must tell the pitch asks
    /// `dominantFrequency` of the whole too.
    public static func typicalTonePower(near hertz: Double, in samples: ArraySlice<Float>) -> Double {
        let powers = tonePowers(near: hertz, in: samples).sorted()
        return powers.isEmpty ? 0 : powers[powers.count / 2]
    }

    /// `tonePower` over each 20 ms of `samples`, in order.
    static func tonePowers(near hertz: Double, in samples: ArraySlice<Float>) -> [Double] {
        let window = 960
        return stride(from: samples.startIndex, to: samples.endIndex - window + 1, by: window).map {
            tonePower(near: hertz, in: samples[$0..<$0 + window])
        }
    }

    /// The frequency (100 Hz to 2 kHz, in steps of 10 Hz) with the most power in `samples` (48 kHz).
    public static func dominantFrequency(_ samples: ArraySlice<Float>) -> Double {
        let candidates = stride(from: 100.0, through: 2_000, by: 10).map { ($0, power(of: $0, in: samples)) }
        return candidates.max { $0.1 < $1.1 }?.0 ?? 0
    }

    /// The root mean square of `samples`: 0.71 of a sine's amplitude.
    public static func rms(_ samples: ArraySlice<Float>) -> Double {
        (samples.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))).squareRoot()
    }

    /// What a tone test that failed needs to say: the typical power near `hertz`, the strongest
    /// frequency and the level of `samples`, and which of its 20 ms have the tone (`#`), some
    /// sound without it (`~`) or silence (`.`).
    public static func describeTone(near hertz: Double, in samples: ArraySlice<Float>) -> String {
        let powers = tonePowers(near: hertz, in: samples)
        let map = zip(powers, stride(from: samples.startIndex, to: samples.endIndex - 960 + 1, by: 960)).map {
            $0 > 1e-3 ? "#" : rms(samples[$1..<$1 + 960]) > 1e-3 ? "~" : "."
        }.joined()
        return "typical power \(typicalTonePower(near: hertz, in: samples)) near \(Int(hertz)) Hz, "
            + "\(powers.filter { $0 > 1e-3 }.count) of \(powers.count) 20 ms above 0.001 (\(map)), strongest at "
            + "\(dominantFrequency(samples)) Hz, rms \(rms(samples))"
    }

    /// The power of the `hertz` component of `samples` (48 kHz), by Goertzel's algorithm.
    public static func power(of hertz: Double, in samples: ArraySlice<Float>) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * hertz / 48_000)
        var (previous, beforeThat) = (0.0, 0.0)
        for sample in samples {
            (previous, beforeThat) = (Double(sample) + coefficient * previous - beforeThat, previous)
        }
        let count = Double(max(1, samples.count))
        return (previous * previous + beforeThat * beforeThat - coefficient * previous * beforeThat) / (count * count)
    }
}
